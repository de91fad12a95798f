import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Thrown by the responder to make Hummingbird drop a connection after a reset fault.
struct ConnectionResetByFault: Error {}

/// Thrown when a listener stops before it ever reported its port.
struct ListenerStoppedBeforeStart: Error {}

/// One bound HTTP or HTTPS listener running the emulator's request handler.
final class Listener: Sendable {
    /// The bound port.
    let port: Int
    private let stop: @Sendable () async throws -> Void
    private let task: Task<Void, Never>

    private init(port: Int, stop: @escaping @Sendable () async throws -> Void, task: Task<Void, Never>) {
        self.port = port
        self.stop = stop
        self.task = task
    }

    /// Binds `host:port` (0 = a free port); with `tls` the listener speaks HTTPS.
    static func start(
        host: String, port: Int, tls: TLSConfiguration?, handler: RequestHandler, logger: Logger
    ) async throws -> Listener {
        let secure = tls != nil
        let responder: HTTPChannelHandler.Responder = { request, writer, channel in
            try await respond(request, writer: writer, channel: channel, secure: secure, handler: handler)
        }
        let http = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: .seconds(120)))
        if let tls {
            return try await run(TLSChannel(http, tlsConfiguration: tls), host: host, port: port, logger: logger)
        }
        return try await run(http, host: host, port: port, logger: logger)
    }

    private static func run<Child: ServerChildChannel>(
        _ child: Child, host: String, port: Int, logger: Logger
    ) async throws -> Listener {
        let signal = StartSignal()
        let server = Server(
            childChannelSetup: child,
            configuration: ServerConfiguration(address: .hostname(host, port: port), backlog: 1024),
            onServerRunning: { channel in signal.succeed(channel.localAddress?.port ?? port) },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger)
        let task = Task {
            do {
                try await server.run()
                signal.fail(ListenerStoppedBeforeStart())
            } catch {
                logger.debug("listener stopped", metadata: ["error": "\(error)"])
                signal.fail(error)
            }
        }
        do {
            let bound = try await signal.wait()
            return Listener(port: bound, stop: { try await server.shutdownGracefully() }, task: task)
        } catch {
            task.cancel()
            throw error
        }
    }

    /// Stops accepting, lets open requests finish (at most `timeout`), then forces the rest.
    ///
    /// Forcing is the last resort: cancelling the server drops the connections it accepted but has
    /// not yet served, and NIO stops a debug build on each ("Deinited NIOAsyncWriter without calling
    /// finish()"). A graceful stop takes milliseconds, but under a sanitizer or on a loaded machine
    /// it has taken over 5 seconds, hence the generous default.
    func shutdown(timeout: Duration = .seconds(30)) async {
        let task = self.task
        let stop = self.stop
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await stop()
                await task.value
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                task.cancel()
            }
            await group.next()
            group.cancelAll()
        }
        await task.value
    }

    /// Converts the Hummingbird request, runs the handler and writes the answer.
    private static func respond(
        _ request: Request, writer: consuming ResponseWriter, channel: any Channel, secure: Bool,
        handler: RequestHandler
    ) async throws {
        var request = request
        if !handler.behindProxy, !handler.locationServices, StreamRoutes.matches(request.head.path ?? "") {
            let incoming = IncomingRequest(
                method: request.method.rawValue, target: request.head.path ?? "/", headers: headerMap(request),
                body: [], isSecure: secure, remoteIP: channel.remoteAddress?.ipAddress)
            return try await StreamRoutes.respond(request, incoming: incoming, writer: writer, context: handler.context)
        }
        let body = try await request.collectBody(upTo: 8 * 1024 * 1024)
        let headers = headerMap(request)
        let incoming = IncomingRequest(

            method: request.method.rawValue, target: request.head.path ?? "/", headers: headers,
            body: Array(body.readableBytesView), isSecure: secure, remoteIP: channel.remoteAddress?.ipAddress)
        let response = await handler.respond(incoming)
        if response.resetConnection {
            await reset(channel)
            throw ConnectionResetByFault()
        }
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPFields.Element.Name(name) {
                fields.append(HTTPFields.Element(name: fieldName, value: value))
            }
        }
        fields[.contentLength] = String(response.body.count)
        let head = HTTPResponse(status: .init(code: response.status), headerFields: fields)
        try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }

    /// The request's headers by lower-case name (the first of each), with `host`.
    private static func headerMap(_ request: Request) -> [String: String] {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            if headers[name] == nil { headers[name] = field.value }
        }
        // HTTP/1 `Host` arrives as the `:authority` pseudo-header.
        if headers["host"] == nil, let authority = request.head.authority { headers["host"] = authority }
        return headers
    }

    /// Closes the TCP connection with a reset, below TLS (no close_notify).
    private static func reset(_ channel: any Channel) async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            if let context = try? channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
                context.close(promise: promise)
            } else {
                channel.close(promise: promise)
            }
        }
        try? await promise.futureResult.get()
    }
}
