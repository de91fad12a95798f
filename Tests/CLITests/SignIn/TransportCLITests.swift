import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The command's way out (no signal at exit, no core dump) and its limits on what servers send,
/// measured on the real process.
@Suite("CLI: exit, core dumps, response limits")
struct TransportCLITests {
    /// Runs `portal-auth` under `/usr/bin/time` and returns its result and peak RSS in KiB.
    func measured(
        _ arguments: [String], ca: String, environment: [String: String] = [:]
    ) async throws -> (
        CLIResult, Int
    ) {
        let report = temporaryPath("pa-rss")
        defer { try? FileManager.default.removeItem(atPath: report) }
        var env = environment
        env["PORTAL_AUTH_CA_BUNDLE"] = ca
        env["PORTAL_AUTH_STORE"] = "memory"
        let result = try await CLI.run(
            "/usr/bin/time", ["-f", "%M", "-o", report, CLI.portalAuth] + arguments, environment: env)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kib = text.split(separator: "\n").compactMap { Int($0) }.last ?? Int.max
        return (result, kib)
    }

    func withHostileServer(_ body: (HostileServer) async throws -> Void) async throws {
        try await withTemporaryDirectory("pa-hostile") { directory in try await HostileServer.with(in: directory, body)
        }
    }

    @Test(
        "request: an answer that never fits stops at --max-response-size and peak memory stays under 3x the limit",
        arguments: ["/big-unannounced", "/endless", "/gzip-bomb", "/endless-headers"])
    func peakMemoryStaysBounded(path: String) async throws {
        try await withHostileServer { server in
            let limit = ["--raw", "--max-response-size", "8M"]
            let (small, baseline) = try await measured(
                ["request", server.baseURL + "/ok"] + limit, ca: server.caCertificatePath)
            #expect(small.status == 0, "\(small.stderr)")
            let (refused, peak) = try await measured(
                ["request", server.baseURL + path] + limit, ca: server.caCertificatePath)
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.oneLineError, "\(refused.stderr)")
            if path == "/endless-headers" {
                #expect(refused.stderr.contains("more response headers than allowed"))
            } else {
                #expect(refused.stderr.contains("maximum response size of 8 MiB"), "\(refused.stderr)")
                #expect(refused.stderr.contains("--max-response-size SIZE or PORTAL_AUTH_MAX_RESPONSE_SIZE"))
            }
            // Under AddressSanitizer (scripts/sanitize.sh says so) its shadow memory and the quarantine of
            // freed blocks count in the resident set: a wider bound, still far below an unbounded read.
            let sanitized = ProcessInfo.processInfo.environment["PORTAL_AUTH_SANITIZER"] == "address"
            let bound = (sanitized ? 9 : 3) * 8 * 1024
            #expect(peak - baseline < bound, "peak \(peak) KiB against \(baseline) KiB for a small answer")
        }
    }

    @Test("request: PORTAL_AUTH_MAX_RESPONSE_SIZE sets the limit, a bad value is a usage error, --timeout the deadline")
    func limitFromTheEnvironmentAndTimeout() async throws {
        try await withHostileServer { server in
            let (small, _) = try await measured(
                ["request", server.baseURL + "/endless", "--raw"], ca: server.caCertificatePath,
                environment: ["PORTAL_AUTH_MAX_RESPONSE_SIZE": "1M"])
            #expect(small.status == 1)
            #expect(small.stderr.contains("maximum response size of 1 MiB"), "\(small.stderr)")
            let (bad, _) = try await measured(
                ["request", server.baseURL + "/ok"], ca: server.caCertificatePath,
                environment: ["PORTAL_AUTH_MAX_RESPONSE_SIZE": "lots"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("PORTAL_AUTH_MAX_RESPONSE_SIZE expects a size"), "\(bad.stderr)")
            let (slow, _) = try await measured(
                ["request", server.baseURL + "/steady", "--raw", "--timeout", "2"], ca: server.caCertificatePath)
            #expect(slow.status == 4)
            #expect(slow.stderr.contains("deadline of 2 s"), "\(slow.stderr)")
            #expect(slow.stderr.contains("--timeout SECONDS"))
        }
    }

    /// The crash at exit was 2 in 1,900 runs (scripts/checks/stress-exit.sh runs 2,000): 60 here cannot
    /// show it reliably, but catches an exit path that crashes often, cheaply. Never flaky: once
    /// fixed, no run ends by a signal.
    @Test("60 request and token processes, 20 at a time, all end without a signal")
    func noSignalAtExit() async throws {
        try await withEmulator { emulator in
            let signIn = try await login(emulator)
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                var statuses: [Int32] = []
                for index in 0..<60 {
                    if index >= 20, let status = try await group.next() { statuses.append(status) }
                    group.addTask {
                        let arguments =
                            index % 3 == 2
                            ? ["token", emulator.portalURL, "--format", "header"]
                            : ["request", emulator.portalURL + "/sharing/rest/portals/self"]
                        return try await CLI.portalAuth(arguments, emulator: emulator).status
                    }
                }
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 60)
            #expect(statuses.filter { $0 > 128 }.isEmpty, "exit statuses: \(statuses.sorted())")
        }
    }

    @Test("core dumps are off from start-up: a command waiting for its password has a core limit of 0")
    func coreDumpsOff() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let pid = try Subprocess.spawn(
            CLI.portalAuth,
            ["login", "--portal", "https://127.0.0.1:9/portal", "--username", "alice", "--password-stdin"],
            environment: Subprocess.environment(["PORTAL_AUTH_STORE": "memory"]), stdin: fds[0])
        close(fds[0])
        // The command blocks reading stdin: wait (bounded) until its limits show the change.
        var limits = ""
        for _ in 0..<300 {
            limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
            if coreLimitIsZero(limits) { break }
            _ = poll(nil, 0, 100)
        }
        close(fds[1])
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        #expect(coreLimitIsZero(limits), "\(limits)")
    }

    func coreLimitIsZero(_ limits: String) -> Bool {
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") }) else {
            return false
        }
        return line.split(separator: " ").filter { !$0.isEmpty }.dropFirst(4).prefix(2) == ["0", "0"]
    }
}
