import Foundation
import PortalAuth
import PortalEmulator
import Synchronization
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

    /// A loopback server run on the executor is polled on the transport's own thread: the head
    /// is read and filtered there, the answer made there, and ``LoopbackHTTPServer/stop()`` ends it.
    @Test func aServerOnTheTransportsExecutorReadsAndAnswersOnItsThread() async throws {
        let transport = CurlTransport(configuration: TransportConfiguration())
        defer { transport.shutdown() }
        let executor = try transport.taskExecutor()
        let server = try LoopbackHTTPServer(address: LoopbackAddress.parse("127.0.0.1:0", defaultPort: 0))
        let filtered = Mutex<[String]>([])
        let serving = Task {
            await server.run(
                headFilter: { _ in
                    filtered.withLock { $0.append(Self.threadName()) }
                    return nil
                }, taskExecutor: executor
            ) { _ in .text(200, Self.threadName()) }
        }
        let answer = try await Subprocess.run(
            "/usr/bin/curl", ["-sS", "-m", "30", "http://127.0.0.1:\(server.address.port)/"], timeout: 60)
        #expect(answer.stdout == "portal-auth-io\n", "\(answer.stderr)")
        #expect(filtered.withLock { $0 } == ["portal-auth-io"])
        server.stop()
        await serving.value
    }

    /// A transport shut down while a server runs on its executor leaves the server serving (on a
    /// thread of its own, its answers on the global executor) until it is stopped.
    @Test func aServerOutlivesItsTransportsLoop() async throws {
        let transport = CurlTransport(configuration: TransportConfiguration())
        let executor = try transport.taskExecutor()
        let server = try LoopbackHTTPServer(address: LoopbackAddress.parse("127.0.0.1:0", defaultPort: 0))
        let serving = Task { await server.run(taskExecutor: executor) { _ in .text(200, "answered") } }
        let url = "http://127.0.0.1:\(server.address.port)/"
        let before = try await Subprocess.run("/usr/bin/curl", ["-sS", "-m", "30", url], timeout: 60)
        #expect(before.stdout == "answered\n", "\(before.stderr)")
        transport.shutdown()
        let after = try await Subprocess.run("/usr/bin/curl", ["-sS", "-m", "30", url], timeout: 60)
        #expect(after.stdout == "answered\n", "\(after.stderr)")
        server.stop()
        await serving.value
    }

    /// A client that hangs up (FIN, or RST) after part of a head frees its place on the hosted path
    /// at once: with room for two connections, a read deadline and an eviction of 10 minutes, two
    /// such clients leave the next request answered. (Were a hang-up not seen, that request would
    /// wait in the backlog for 10 minutes, past curl's 60 s.)
    @Test(arguments: [false, true])
    func aClientThatHangsUpMidHeadFreesItsPlaceOnTheTransportsThread(reset: Bool) async throws {
        let transport = CurlTransport(configuration: TransportConfiguration())
        defer { transport.shutdown() }
        let executor = try transport.taskExecutor()
        let server = try LoopbackHTTPServer(
            address: LoopbackAddress.parse("127.0.0.1:0", defaultPort: 0), maximumConnections: 2,
            readDeadline: .seconds(600), evictAfter: .seconds(600))
        // (The head filter runs where the connections are polled: the transport's thread when hosted.)
        let polledOn = Mutex<[String]>([])
        let serving = Task {
            await server.run(
                headFilter: { _ in
                    polledOn.withLock { $0.append(Self.threadName()) }
                    return nil
                }, taskExecutor: executor
            ) { _ in .text(200, "answered") }
        }
        for _ in 0..<2 { try Self.sendPartOfAHeadAndHangUp(port: server.address.port, reset: reset) }
        let answer = try await Subprocess.run(
            "/usr/bin/curl", ["-sS", "-m", "60", "http://127.0.0.1:\(server.address.port)/"], timeout: 90)
        #expect(answer.stdout == "answered\n", "\(answer.stderr)")
        #expect(polledOn.withLock { $0 } == ["portal-auth-io"])
        server.stop()
        await serving.value
    }

    /// Connects to 127.0.0.1:`port`, sends the start of a request head and closes (with
    /// `SO_LINGER` 0, `reset`: the kernel sends RST instead of FIN).
    static func sendPartOfAHeadAndHangUp(port: Int, reset: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "connect: \(errno)")
        let part = Array("GET / HTTP/1.1\r\nHost: 127.0.0".utf8)
        try #require(send(fd, part, part.count, 0) == part.count)
        if reset {
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        }
    }
}
