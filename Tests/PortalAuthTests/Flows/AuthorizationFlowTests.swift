import Foundation
import TestSupport
import Testing

@testable import PortalAuth

@Suite struct PKCETests {
    @Test func theChallengeIsBase64URLOfTheSHA256OfTheVerifier() async throws {
        let verifier = "dBjftJeZ4CVP-mJ92K9ug6g2ygx5mZb9Y1kFq3vVcTw"
        let pkce = try PKCE(verifier: verifier)
        // Computed independently with Python's hashlib.
        let reference = try await Subprocess.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import hashlib, base64, sys
                print(base64.urlsafe_b64encode(hashlib.sha256(sys.argv[1].encode()).digest()).decode().rstrip("="))
                """, verifier,
            ])
        #expect(pkce.codeChallenge == reference.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(pkce.codeChallenge == "MQTMnZ9x0y0GPhp-fsfELPAiwtW7Po7aj_LKlHV3C6o")
        #expect(pkce.codeChallengeMethod == "S256")
    }

}

@Suite struct LoopbackListenerTests {
    @Test func answersTheBrowserAndReturnsTheParameters() async throws {
        let listener = try LoopbackRedirectListener(port: nil)
        #expect(listener.port > 0)
        async let answer = listener.waitForRedirect(path: "/cb", expectedState: "s1", timeout: 30)
        // A stray request first (browsers ask for /favicon.ico), then the redirect.
        let stray = try await Subprocess.run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(listener.port)/favicon.ico"])
        #expect(stray.stdout == "404")
        let page = try await Subprocess.run(
            "/usr/bin/curl", ["-s", "http://127.0.0.1:\(listener.port)/cb?code=abc&state=s1"])
        #expect(page.stdout.contains("You can close this tab"))
        let parameters = try await answer
        #expect(parameters == ["code": "abc", "state": "s1"])
    }

    @Test func aForeignStateOrAForgedErrorIsTurnedAwayAndTheSignInGoesOn() async throws {
        let listener = try LoopbackRedirectListener(port: nil)
        async let answer = listener.waitForRedirect(path: "/cb", expectedState: "mine", timeout: 60)
        let base = "http://127.0.0.1:\(listener.port)/cb"
        for forged in ["?code=abc&state=forged", "?error=access_denied", "?error=access_denied&state=forged", ""] {
            let page = try await Subprocess.run("/usr/bin/curl", ["-s", "-w", "%{http_code}", base + forged])
            #expect(page.stdout.contains("does not belong to the sign-in in progress, which goes on"), "\(forged)")
            #expect(page.stdout.hasSuffix("400"))
        }
        let page = try await Subprocess.run("/usr/bin/curl", ["-s", base + "?code=real&state=mine"])
        #expect(page.stdout.contains("You can close this tab"))
        #expect(try await answer == ["code": "real", "state": "mine"])
    }

    @Test func aForeignStateIsNamedWhenTheWaitTimesOut() async throws {
        let listener = try LoopbackRedirectListener(port: nil)
        let answer = Task { try await listener.waitForRedirect(path: "/cb", expectedState: "mine", timeout: 5) }
        let page = try await Subprocess.run(
            "/usr/bin/curl", ["-s", "http://127.0.0.1:\(listener.port)/cb?state=forged"])
        #expect(page.stdout.contains("does not belong"))
        let error = await #expect(throws: PortalAuthError.self) { try await answer.value }
        #expect(error?.code == .timedOut)
        #expect(error?.remedy == .raiseLimit(.signInTimeout, value: 5))
        #expect(error?.message.contains("1 answer with a state that does not belong to this sign-in") == true)
    }

    /// Connections that never send anything cannot hold the redirect up: here they would have
    /// five minutes each, they are more than the listener reads at once, and the redirect is
    /// still answered while they stay open.
    @Test func idleConnectionsDoNotHoldUpTheRedirect() async throws {
        let listener = try LoopbackRedirectListener(port: nil, readDeadline: .seconds(300))
        async let answer = listener.waitForRedirect(path: "/cb", expectedState: "s", timeout: 120)
        let idle = try (0..<(LoopbackRedirectListener.maximumConnections + 4)).map { _ in
            try connectIdle(port: listener.port)
        }
        defer { idle.forEach { close($0) } }
        let page = try await Subprocess.run(
            "/usr/bin/curl", ["-s", "http://127.0.0.1:\(listener.port)/cb?code=c&state=s"])
        #expect(page.stdout.contains("You can close this tab"))
        #expect(try await answer == ["code": "c", "state": "s"])
    }

    @Test func anOversizedRequestIsRefused() async throws {
        let listener = try LoopbackRedirectListener(port: nil)
        async let answer = listener.waitForRedirect(path: "/cb", expectedState: "s", timeout: 60)
        let big = String(repeating: "a", count: 20_000)
        let refused = try await Subprocess.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Big: \(big)",
                "http://127.0.0.1:\(listener.port)/cb?code=c&state=s",
            ])
        #expect(refused.stdout == "431")
        _ = try await Subprocess.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(listener.port)/cb?code=c&state=s"])
        #expect(try await answer == ["code": "c", "state": "s"])
    }

    /// A TCP connection to 127.0.0.1:port that sends nothing.
    private func connectIdle(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(fd >= 0 && connected == 0)
        return fd
    }

    @Test func aPortInUseIsAClearErrorNamingThePort() throws {
        let first = try LoopbackRedirectListener(port: nil)
        let error = #expect(throws: PortalAuthError.self) { try LoopbackRedirectListener(port: first.port) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("port \(first.port)") == true)
        #expect(error?.message.contains("already in use") == true)
    }

    // A wait that never ended would hit the time limit; no wall-clock bound (a loaded machine
    // may take long to run the listener's thread at all).
    @Test(.timeLimit(.minutes(5))) func givingUpAfterTheTimeout() async throws {
        let listener = try LoopbackRedirectListener(port: nil)
        let error = await #expect(throws: PortalAuthError.self) {
            try await listener.waitForRedirect(path: "/cb", expectedState: nil, timeout: 1)
        }
        #expect(error?.code == .timedOut)
        #expect(error?.remedy == .raiseLimit(.signInTimeout, value: 1))
    }

    @Test func cancellationStopsTheWait() async throws {
        let listener = try LoopbackRedirectListener(port: nil)
        let task = Task { try await listener.waitForRedirect(path: "/cb", expectedState: nil, timeout: 60) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let error = await #expect(throws: PortalAuthError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }
}

@Suite struct SystemBrowserTests {

    @Test func aBrowserThatCannotStartIsReported() {
        let error = #expect(throws: PortalAuthError.self) {
            try SystemBrowser(browserVariable: "/nonexistent/browser").open(URL(string: "https://p.example/")!)
        }
        #expect(error?.code == .invalidConfiguration && error?.remedy == .openSignInPageYourself)
    }
}
