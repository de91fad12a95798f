import Foundation
import PortalAuth
import TestSupport
import Testing

/// What a server sends is bounded: real libcurl over real HTTPS on loopback against
/// Tests/Fixtures/hostile-https-server.py. Each answer that never fits or never ends stops with the error
/// that names its limit, well within the request's deadline. (Peak memory is measured in a child
/// process, by the CLI tests: a test process's own RSS says nothing clean.)
@Suite("Transport limits")
struct TransportLimitTests {
    static let limit = 8 << 20
    static let deadline: Double = 30

    /// A hostile server and a transport trusting it, with an 8 MiB limit, a 30 s deadline and a
    /// low-speed limit of 1 KiB/s over 2 s; both shut down (awaited) after `body`.
    func withServer(
        timeout: Double = deadline, _ body: (HostileServer, CurlTransport) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pa-hostile-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await HostileServer.with(in: directory) { server in
            let transport = CurlTransport(
                configuration: TransportConfiguration(
                    caBundlePath: server.caCertificatePath, timeout: timeout, maxResponseSize: Self.limit,
                    lowSpeedLimit: 1024, lowSpeedTime: 2))
            defer { transport.shutdown() }
            try await body(server, transport)
        }
    }

    /// Sends `GET base + path` and returns the error it ended with (nil: it succeeded) and how long it took.
    func failure(
        _ server: HostileServer, _ transport: CurlTransport, _ path: String, maxResponseSize: Int? = nil
    ) async -> (error: PortalAuthError?, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        var error: PortalAuthError?
        do {
            _ = try await transport.send(
                TransportRequest(url: URL(string: server.baseURL + path)!, maxResponseSize: maxResponseSize),
                options: TransportOptions())
        } catch let caught as PortalAuthError {
            error = caught
        } catch {
            Issue.record("not a PortalAuthError: \(error)")
        }
        let elapsed = clock.now - start
        return (error, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test(
        "an answer larger than the limit stops there: announced, unannounced, endless, or a gzip bomb",
        arguments: ["/big", "/big-unannounced", "/endless", "/gzip-bomb"])
    func tooLarge(path: String) async throws {
        try await withServer { server, transport in
            let (error, seconds) = await failure(server, transport, path)
            #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
            #expect(error?.message.contains("the transport's maximum response size of 8 MiB") == true)
            #expect(error?.remedy == .raiseLimit(.responseSize, value: Self.limit))
            #expect(error?.message.contains("--") == false, "the library names no CLI flag")
            #expect(seconds < Self.deadline)
        }
    }

    @Test("a request's own limit wins over the transport's, and the error says which")
    func requestLimit() async throws {
        try await withServer { server, transport in
            let (error, _) = await failure(server, transport, "/endless", maxResponseSize: 1 << 20)
            #expect(error?.code == .responseTooLarge)
            #expect(error?.message.contains("this request's maximum response size of 1 MiB") == true)
            #expect(error?.remedy == PortalAuthError.Remedy.none)
        }
    }

    @Test("header lines that never end stop at the header limits")
    func endlessHeaders() async throws {
        try await withServer { server, transport in
            let (error, seconds) = await failure(server, transport, "/endless-headers")
            #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
            #expect(error?.message.contains("at most 500 lines and 256 KiB") == true)
            #expect(seconds < Self.deadline)
        }
    }

    @Test("one 10 MiB header line is stopped at libcurl's header line limit, which the error names")
    func hugeHeaderLine() async throws {
        try await withServer { server, transport in
            let (error, _) = await failure(server, transport, "/huge-header")
            #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
            #expect(error?.message.contains("header line") == true, "\(String(describing: error?.message))")
            #expect(error?.message.contains("100 KiB") == true)
            #expect(error?.message.hasPrefix("the answer from") == true)
        }
    }

    @Test("a body that never ends, fast enough for the low-speed limit, ends at the request's deadline")
    func deadline() async throws {
        try await withServer(timeout: 3) { server, transport in
            let (error, seconds) = await failure(server, transport, "/steady")
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(error?.message.contains("deadline of 3 s") == true)
            #expect(error?.remedy == .raiseLimit(.requestTimeout, value: 3))
            #expect(seconds >= 3 && seconds < Self.deadline)
        }
    }

    @Test("a trickle ends at the low-speed limit")
    func trickle() async throws {
        try await withServer { server, transport in
            let (error, seconds) = await failure(server, transport, "/trickle")
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(error?.message.contains("less than 1024 bytes per second for 2 s") == true)
            #expect(error?.remedy == .retryLater)
            #expect(seconds < Self.deadline)
        }
    }

    @Test("an answer within the limits arrives, and the transport serves again after a stopped transfer")
    func withinLimits() async throws {
        try await withServer { server, transport in
            _ = await failure(server, transport, "/endless")
            let response = try await transport.send(
                TransportRequest(url: URL(string: server.baseURL + "/ok")!), options: TransportOptions())
            #expect(response.status == 200)
            #expect(response.text == #"{"ok":true}"#)
        }
    }

    @Test("shutdown() joins the loop thread; the transport's next request starts a new one")
    func afterShutdown() async throws {
        try await withServer { server, transport in
            _ = try await transport.send(
                TransportRequest(url: URL(string: server.baseURL + "/ok")!), options: TransportOptions())
            transport.shutdown()
            let again = try await transport.send(
                TransportRequest(url: URL(string: server.baseURL + "/ok")!), options: TransportOptions())
            #expect(again.status == 200)
        }
    }
}
