import Foundation
import PortalAuth
import PortalEmulator
import TestSupport
import Testing

/// ``CurlTransport/taskExecutor()``: a task that prefers it runs on the transport's event-loop
/// thread, and comes back to it after each request (serve's answers, without hand-offs between
/// threads), each request started at once; once the transport shuts down, such a task still runs.
@Suite struct CurlTransportExecutorTests {
    /// The name of the calling thread.
    static func threadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .newlines)
    }

    @Test func aTaskOnTheTransportsExecutorRunsOnItsThreadAcrossRequests() async throws {
        try await withEmulator { emulator in
            let transport = CurlTransport(
                configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath))
            let executor = try transport.taskExecutor()
            let info = try #require(URL(string: emulator.portalURL + "/sharing/rest/info?f=json"))
            let started = ContinuousClock.now
            let seen = try await Task(executorPreference: executor) {
                var seen = [Self.threadName()]
                for _ in 0..<10 {
                    let answer = try await transport.send(TransportRequest(url: info), options: TransportOptions())
                    #expect(answer.status == 200)
                    seen.append(Self.threadName())
                }
                return seen
            }.value
            #expect(seen == Array(repeating: "portal-auth-io", count: 11))
            // (A transfer started by a task on the loop's thread that waited for the loop's poll to
            // time out would take a second each: ten would take ten.)
            #expect(ContinuousClock.now - started < .seconds(5))
            // (A task that does not prefer it runs elsewhere.)
            #expect(await Task { Self.threadName() }.value != "portal-auth-io")
            transport.shutdown()
            #expect(await Task(executorPreference: executor) { Self.threadName() }.value != "portal-auth-io")
        }
    }
}
