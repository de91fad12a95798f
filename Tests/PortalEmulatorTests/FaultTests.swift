import Foundation
import TestSupport
import Testing

@testable import PortalEmulator

@Suite("Faults")
struct FaultTests {
    @Test("http500 answers HTTP 500 with HTML, once")
    func http500() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .http500, count: 1))
            let url = emulator.serverURL + "/rest/info?f=json"
            let failed = try await Curl.get(url, ca: emulator.caCertificatePath)
            #expect(failed.status == 500)
            #expect(failed.contentType.hasPrefix("text/html"))
            let next = try await Curl.get(url, ca: emulator.caCertificatePath)
            #expect(next.status == 200)
            #expect(try next.json()["owningSystemUrl"] is String)
        }
    }

    @Test("malformedJSON claims JSON but does not parse")
    func malformedJSON() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .malformedJSON, count: 1))
            let result = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(result.status == 200)
            #expect(result.contentType.hasPrefix("application/json"))
            #expect(!result.body.isEmpty)
            #expect((try? JSONSerialization.jsonObject(with: result.body)) == nil)
        }
    }

    @Test("html answers a 200 HTML page")
    func html() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .html, count: 1))
            let result = try await Curl.get(
                emulator.portalURL + "/sharing/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(result.status == 200)
            #expect(result.contentType.hasPrefix("text/html"))
            #expect(result.text.contains("<html"))
        }
    }

    @Test("connectionReset drops the connection without an answer")
    func connectionReset() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .connectionReset, count: 1))
            let result = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect([52, 56, 35].contains(result.exitCode), "exit \(result.exitCode): \(result.stderr)")
            #expect(result.status == 0)
            let next = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(next.status == 200)
        }
    }

    @Test("latency delays the answer; latencyMilliseconds applies to every request")
    func latency() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .latency, count: 1, milliseconds: 600))
            let clock = ContinuousClock()
            let start = clock.now
            let slow = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(clock.now - start >= .milliseconds(600))
            #expect(slow.status == 200)
            #expect(try slow.json()["currentVersion"] != nil)
        }
        var configuration = EmulatorConfiguration.default
        configuration.latencyMilliseconds = 400
        try await withEmulator(configuration) { emulator in
            let clock = ContinuousClock()
            let start = clock.now
            _ = try await Curl.get(emulator.portalURL + "/sharing/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(clock.now - start >= .milliseconds(400))
        }
    }

    @Test("rejectAllTokens answers 498 to fresh tokens while armed, and ignores requests without one")
    func rejectAllTokens() async throws {
        try await withEmulator { emulator in
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 600, kind: .server)
            emulator.inject(Fault(kind: .rejectAllTokens, count: 2))
            let info = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(info.errorCode == nil)
            for _ in 0..<2 {
                let rejected = try await emulator.query(emulator.serverQueryURL, token: token, [("where", "1=1")])
                #expect(rejected.errorCode == 498)
            }
            let accepted = try await emulator.query(
                emulator.serverQueryURL, token: token, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try accepted.json()["count"] as? Int == 24)
            #expect(emulator.counters().queriesByTokenKind == ["rejected": 2, "server": 1])
        }
    }

    @Test("pathContains restricts a fault; clearFaults disarms everything")
    func pathRestrictionAndClear() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .http500, pathContains: "/standalone/"))
            let other = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(other.status == 200)
            for _ in 0..<3 {
                let hit = try await Curl.get(
                    emulator.standaloneServerURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
                #expect(hit.status == 500)
            }
            emulator.clearFaults()
            let cleared = try await Curl.get(
                emulator.standaloneServerURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(cleared.status == 200)
        }
    }

    @Test("faults can be armed and cleared over HTTP")
    func adminFaults() async throws {
        try await withEmulator { emulator in
            let body = #"[{"kind":"http500","pathContains":"rest/info","count":1},{"kind":"html","count":1}]"#
            let armed = try await Curl.run([
                "--cacert", emulator.caCertificatePath, "-X", "POST", "-H", "Content-Type: application/json",
                "--data-binary", body, emulator.baseURL + "/emulator/faults",
            ])
            #expect(try armed.json()["added"] as? Int == 2)
            let first = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(first.status == 500)
            let cleared = try await Curl.run([
                "--cacert", emulator.caCertificatePath, "-X", "DELETE", emulator.baseURL + "/emulator/faults",
            ])
            #expect(cleared.status == 200)
            let second = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            #expect(second.contentType.hasPrefix("application/json"))
            let bad = try await Curl.run([
                "--cacert", emulator.caCertificatePath, "-X", "POST", "--data-binary", "{\"kind\":\"nope\"}",
                emulator.baseURL + "/emulator/faults",
            ])
            #expect(bad.status == 400)
        }
    }

}
