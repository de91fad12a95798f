import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on a loopback address, for local programs: plain POSIX sockets and
/// one thread that reads every connection with one `poll`, so that nothing is loaded that
/// `portal-auth token` would pay for. `portal-auth serve` runs on it, and so does the OAuth
/// redirect's listener (``LoopbackRedirectListener``).
///
/// Bounded against a slow or hostile client: at most ``maximumConnections`` connections are open
/// at once (reading or being answered; at the limit the server stops accepting, and the rest wait
/// in the kernel's queue of ``backlog`` connections: queued, not reset), each has
/// ``readDeadline`` to send its whole request, the head and body are bounded by
/// ``LoopbackHTTPRequest/Limits``, a request can be refused on its head before its body is read
/// (`run(headFilter:_:)`), and an answer that the client has not read whole within
/// ``writeTimeout`` is dropped. A connection the client keeps open (HTTP/1.1 keep-alive) is read
/// again for its next request, under a new ``readDeadline``; at the limit, with a new connection
/// waiting, an idle one, else the oldest whose head has not arrived after ``evictAfter``, is
/// closed to make room (``Admission``). A streamed answer whose client takes nothing, or whose
/// upstream sends nothing, for ``writeTimeout`` is ended, and its thread and transfer freed.
package final class LoopbackHTTPServer: Sendable {
    /// An answer.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]
        /// A body passed on as it arrives instead of ``body``: written with `Content-Length` when
        /// ``bodyLength`` is known, else chunked (to an HTTP/1.1 client) or up to the connection's
        /// close; a client that has not taken a piece within ``LoopbackHTTPServer/writeTimeout``
        /// ends it (``ResponseBodyStream/abort()``).
        package var bodyStream: ResponseBodyStream?
        /// The streamed body's length, when known.
        package var bodyLength: Int?

        package init(
            status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
            bodyStream: ResponseBodyStream? = nil, bodyLength: Int? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyStream = bodyStream
            self.bodyLength = bodyLength
        }

        /// A short plain-text answer.
        package static func text(_ status: Int, _ text: String) -> Response {
            Response(
                status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: Array((text + "\n").utf8))
        }
    }

    /// What answers a complete request.
    package typealias Handler = @Sendable (LoopbackHTTPRequest) async -> Response
    /// What refuses a request on its head alone (the request given has an empty body), before
    /// its body is read; nil lets it go on. It runs on the thread that polls the connections: for a
    /// server on a transport's executor, the transport's own thread, whose every transfer waits
    /// while it runs, so it decides on the head alone and never waits (no lock held long, no I/O).
    package typealias HeadFilter = @Sendable (LoopbackHTTPRequest) -> Response?

    /// The address it listens on, with the port it was given.
    package let address: LoopbackAddress
    /// How many connections may be open at once.
    package let maximumConnections: Int
    /// How long a connection may take to send its whole request.
    package let readDeadline: Duration
    /// How long an answer may wait for the client to read it, and a streamed answer for its next
    /// piece, in seconds.
    package let writeTimeout: Int
    /// How long a connection whose request head has not arrived keeps its place while others wait.
    package let evictAfter: Duration
    /// How many connections the kernel queues while the server is at ``maximumConnections``
    /// (the kernel caps it at `net.core.somaxconn`).
    package static let backlog: Int32 = 4096
    /// The bounds of a request.
    package let limits: LoopbackHTTPRequest.Limits
    /// The listening socket, kept (and so open) as long as the server.
    private let socket: ListeningSocket
    private var socketFD: Int32 { socket.fd }
    private let stopped = Locked(false)
    /// Whether a new connection is accepted, and how many are being answered.
    private let admission: Locked<Admission>
    /// Answered connections whose client keeps them open, to be read again by the loop.
    private let returned = Locked<[Int32]>([])
    /// The loop's wake-up: a byte written to `wake[1]` ends its `poll` (a connection returned).
    private let wake: (read: Int32, write: Int32)

    /// Binds `address` (port 0: a free one).
    package convenience init(
        address: LoopbackAddress, maximumConnections: Int = 64, readDeadline: Duration = .seconds(30),
        writeTimeout: Int = 60, evictAfter: Duration = .seconds(10), limits: LoopbackHTTPRequest.Limits = .init()
    ) throws {
        try self.init(
            socket: ListeningSocket.bind(address), maximumConnections: maximumConnections, readDeadline: readDeadline,
            writeTimeout: writeTimeout, evictAfter: evictAfter, limits: limits)
    }

    /// Serves on `socket` (bound here, or passed by systemd), which it keeps: closed with the server
    /// unless a copy of it is kept elsewhere.
    package init(
        socket: ListeningSocket, maximumConnections: Int = 64, readDeadline: Duration = .seconds(30),
        writeTimeout: Int = 60, evictAfter: Duration = .seconds(10), limits: LoopbackHTTPRequest.Limits = .init()
    ) throws {
        self.maximumConnections = max(1, maximumConnections)
        self.readDeadline = readDeadline
        self.writeTimeout = max(1, writeTimeout)
        self.evictAfter = evictAfter
        admission = Locked(Admission(maximum: maximumConnections, evictAfter: evictAfter))
        self.limits = limits
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw Self.posixError("make a pipe") }
        for end in pipeFDs {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wake = (pipeFDs[0], pipeFDs[1])
        self.socket = socket
        self.address = socket.address
    }

    deinit {
        close(wake.read)
        close(wake.write)
        returned.withLock { $0.forEach { close($0) } }
    }

    private static func posixError(_ what: String, code: Int32 = errno) -> PortalAuthError {
        let text = String(cString: strerror(code))
        return PortalAuthError(.connectionFailed, "cannot \(what): \(text)", cause: .posix(code: code, message: text))
    }

    /// Serves until ``stop()``; each complete request is answered by `handler` in a task of its own
    /// (on `taskExecutor` when given). `headFilter` may refuse a request as soon as its head has
    /// arrived (nothing of its body is read or kept). The connections are polled on a thread of
    /// their own, or, when `taskExecutor` is a transport's (``CurlTransport/taskExecutor()``), on
    /// that transport's thread with its sockets: then a request is read, answered and sent on one thread.
    package func run(
        headFilter: HeadFilter? = nil, taskExecutor: (any TaskExecutor)? = nil, _ handler: @escaping Handler
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let turns = Turns(
                server: self, headFilter: headFilter, taskExecutor: taskExecutor, handler: handler,
                finished: { continuation.resume() })
            if let loop = taskExecutor as? CurlLoopExecutor {
                // (Its accept never waits on the transport's thread: non-blocking, as its connections are.)
                let socketFD = socketFD
                _ = fcntl(socketFD, F_SETFL, fcntl(socketFD, F_GETFL) | O_NONBLOCK)
                if loop.host(turns) { return }
            }
            BlockingIO.detached { [self] in serveLoop(turns) }
        }
    }

    /// Ends ``run(headFilter:taskExecutor:_:)`` at once: its loop is woken (answers under way still go out).
    package func stop() {
        stopped.withLock { $0 = true }
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    /// Turns `turns` on this thread, with its own `poll`, until the server stops.
    private func serveLoop(_ turns: Turns) {
        while let (descriptors, timeout) = turns.prepareTurn() {
            var entries = descriptors
            guard poll(&entries, nfds_t(entries.count), timeout) >= 0 else { continue }
            turns.finishTurn(entries)
        }
    }

    /// Reads what the socket has for `connection` (through `buffer`) and hands it over.
    private func read(
        _ connection: inout Connection, _ headFilter: HeadFilter?, into buffer: inout [UInt8]
    ) -> Connection.Action {
        let count = Glibc.read(connection.fd, &buffer, buffer.count)
        if count < 0 { return errno == EAGAIN || errno == EINTR ? connection.waited(now: .now) : connection.closed() }
        if count == 0 { return connection.closed() }
        return connection.receive(buffer[0..<count], at: .now, limits: limits, headFilter: headFilter)
    }

    /// Does what a connection's state machine answered; whether the loop reads it on.
    private func perform(
        _ action: Connection.Action, on connection: Connection, _ taskExecutor: (any TaskExecutor)?,
        _ handler: @escaping Handler
    ) -> Bool {
        switch action {
        case .read: return true
        case .close: close(connection.fd)
        case .answerAndClose(let response):
            Self.write(connection.fd, response)
            close(connection.fd)
        case .answer(let request): answer(connection.fd, request, taskExecutor, handler)
        case .answerStreaming(var request, let received, let length):
            request.bodyStream = RequestBodyStream(
                fd: connection.fd, received: received, length: length,
                idleSeconds: Int(readDeadline.components.seconds))
            answer(connection.fd, request, taskExecutor, handler)
        }
        return false
    }

    /// Whether a new connection may be accepted: below the limit, or once a connection that holds
    /// a place without using it is closed (see ``Admission``); otherwise new connections wait in
    /// the kernel's queue.
    private func makeRoom(_ connections: inout [Connection], now: ContinuousClock.Instant) -> Bool {
        while true {
            let reading = connections.map(\.reading)
            let pending = reading.count + admission.withLock({ $0.answering }) >= maximumConnections && isPending()
            switch admission.withLock({ $0.action(reading: reading, pending: pending, now: now) }) {
            case .accept: return true
            case .hold: return false
            case .evict(let index): close(connections.remove(at: index).fd)
            }
        }
    }

    /// Hands a complete request to the handler. An answer that the socket takes at once (a short
    /// one, to a client that reads: nearly every answer) is written by the task itself, without a
    /// send that could block; the rest, and every streamed body, is written on a thread of its own,
    /// whose sends may wait for a slow client (within ``writeTimeout``).
    private func answer(
        _ fd: Int32, _ request: LoopbackHTTPRequest, _ taskExecutor: (any TaskExecutor)?, _ handler: @escaping Handler
    ) {
        admission.withLock { $0.startAnswering() }
        let timeout = writeTimeout
        // (The server itself, not its parts: the wake pipe it writes to at the end is closed only
        // with the server, so a server let go of while an answer is under way lives until it ends.)
        Task(executorPreference: taskExecutor) { [self] in
            let response = await handler(request)
            // Done with the connection: kept for the client's next request, or closed.
            let finish: @Sendable (Bool) -> Void = { [self] written in
                // A streamed body is read no further (and the connection not kept) once answered.
                request.bodyStream?.stop()
                if Connection.keptAfterAnswer(request, written: written) {
                    returned.withLock { $0.append(fd) }
                } else {
                    close(fd)
                }
                admission.withLock { $0.endAnswering() }
                // (The loop reads the connection again, and may accept again: wake it.)
                var byte: UInt8 = 1
                _ = Glibc.write(wake.write, &byte, 1)
            }
            var bytes: [UInt8] = []
            // (A request whose body streams is finished on the thread: stopping its body may wait.)
            if response.bodyStream == nil, request.bodyStream == nil {
                bytes = Self.serialize(
                    response, keepAlive: request.keepsAlive, includeBody: request.method != "HEAD")
                guard let sent = Self.sendWithoutWaiting(fd, bytes) else { return finish(false) }
                if sent == bytes.count { return finish(true) }
                bytes.removeFirst(sent)
            }
            BlockingIO.detached { [bytes] in
                Self.setBlocking(fd, true, sendTimeout: timeout)
                let written =
                    if let stream = response.bodyStream {
                        Self.writeStreamed(fd, response, stream, for: request, idle: .seconds(timeout))
                    } else if request.bodyStream != nil {
                        Self.write(
                            fd, response, keepAlive: request.keepsAlive, includeBody: request.method != "HEAD",
                            until: .now + .seconds(timeout))
                    } else {
                        Self.write(fd, bytes, until: .now + .seconds(timeout))
                    }
                Self.setBlocking(fd, false, sendTimeout: timeout)
                finish(written)
            }
        }
    }

    /// Sends what the non-blocking `fd` takes of `bytes` now: how many bytes went, or nil when the
    /// connection failed.
    private static func sendWithoutWaiting(_ fd: Int32, _ bytes: [UInt8]) -> Int? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { return offset }
            if written <= 0 { return nil }
            offset += written
        }
        return offset
    }

    /// Whether a new connection waits in the listening socket's queue.
    private func isPending() -> Bool {
        var entry = pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// A new connection, non-blocking, or nil.
    private func acceptConnection() -> Int32? {
        let fd = accept(socketFD, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    private static func setBlocking(_ fd: Int32, _ blocking: Bool, sendTimeout seconds: Int) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK)
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The status line, the headers (control characters replaced), `Content-Length` (none for
    /// 1xx, 204 and 304, which have no body), `Connection`, and the body (not to a HEAD request:
    /// `includeBody` false).
    package static func serialize(_ response: Response, keepAlive: Bool = false, includeBody: Bool = true) -> [UInt8] {
        let bodiless = (100..<200).contains(response.status) || response.status == 204 || response.status == 304
        let length = bodiless ? nil : "Content-Length: \(response.body.count)"
        let head = head(response, framing: length, keepAlive: keepAlive)
        return includeBody && !bodiless ? head + response.body : head
    }

    /// The status line, the headers (control characters replaced), the `framing` header if any,
    /// and `Connection`.
    static func head(_ response: Response, framing: String?, keepAlive: Bool) -> [UInt8] {
        var head: [UInt8] = []
        head.reserveCapacity(512)
        // (A control character, which in UTF-8 is never part of another character, becomes a space.)
        func append(_ text: String) {
            guard ASCIIText.containsControlCharacter(text) else { return head.append(contentsOf: text.utf8) }
            for byte in text.utf8 { head.append(byte < 0x20 || byte == 0x7F ? 0x20 : byte) }
        }
        append("HTTP/1.1 \(response.status) \(reasonPhrase(response.status))")
        head += [0x0D, 0x0A]
        for header in response.headers {
            append(header.name)
            head += [UInt8(ascii: ":"), 0x20]
            append(header.value)
            head += [0x0D, 0x0A]
        }
        if let framing {
            append(framing)
            head += [0x0D, 0x0A]
        }
        append(keepAlive ? "Connection: keep-alive" : "Connection: close")
        head += [0x0D, 0x0A, 0x0D, 0x0A]
        return head
    }

    /// Writes the head, then the body of `stream` as it arrives (on a blocking `fd` whose sends
    /// time out): with `Content-Length` when known, else chunked to an HTTP/1.1 client, else up to
    /// the close. True when the body went out whole and the connection may be kept; on a send that
    /// fails or times out (a client that stopped reading), or no piece from upstream for `idle`,
    /// the transfer is aborted.
    static func writeStreamed(
        _ fd: Int32, _ response: Response, _ stream: ResponseBodyStream, for request: LoopbackHTTPRequest,
        idle: Duration = .seconds(60)
    ) -> Bool {
        let chunked = response.bodyLength == nil && request.isHTTP11
        let keepAlive = request.keepsAlive && (response.bodyLength != nil || chunked)
        let framing =
            response.bodyLength.map { "Content-Length: \($0)" } ?? (chunked ? "Transfer-Encoding: chunked" : nil)
        guard sendAll(fd, head(response, framing: framing, keepAlive: keepAlive)) else {
            stream.abort()
            return false
        }
        while true {
            switch stream.next(idle: idle) {
            case .bytes(let bytes):
                let sent =
                    chunked
                    ? sendAll(fd, Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + [0x0D, 0x0A])
                    : sendAll(fd, bytes)
                guard sent else {
                    stream.abort()
                    return false
                }
            case .end:
                return (!chunked || sendAll(fd, Array("0\r\n\r\n".utf8))) && keepAlive
            case .failed:
                // Closed without the body's end: the client sees that it is incomplete.
                return false
            }
        }
    }

    /// Sends all of `bytes`; false when a send fails (or times out).
    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Writes the whole answer; false when the client went away, or (for a blocking `fd`) has not
    /// read all of it by `deadline`: each send may wait only for the time left.
    @discardableResult
    private static func write(
        _ fd: Int32, _ response: Response, keepAlive: Bool = false, includeBody: Bool = true,
        until deadline: ContinuousClock.Instant? = nil
    ) -> Bool {
        write(fd, serialize(response, keepAlive: keepAlive, includeBody: includeBody), until: deadline)
    }

    /// Writes all of `bytes`; false when the client went away, or (for a blocking `fd`) has not
    /// read them all by `deadline`.
    private static func write(_ fd: Int32, _ bytes: [UInt8], until deadline: ContinuousClock.Instant?) -> Bool {
        var offset = 0
        while offset < bytes.count {
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { return false }
                let micros = max(
                    1000, left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000)
                var timeout = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            }
            let written = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// The reason phrase of the statuses a local server answers with.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

extension LoopbackHTTPServer {
    /// A serving loop's connections, turned one poll at a time: by a thread of its own
    /// (``run(headFilter:taskExecutor:_:)``'s `serveLoop`) or by a transport's event loop
    /// (``CurlLoopPoller``). One thread turns it at a time.
    final class Turns: CurlLoopPoller, @unchecked Sendable {
        private let server: LoopbackHTTPServer
        private let headFilter: HeadFilter?
        private let taskExecutor: (any TaskExecutor)?
        private let handler: Handler
        /// Lets ``run(headFilter:taskExecutor:_:)`` return (once).
        private var finished: (@Sendable () -> Void)?
        private var connections: [Connection] = []
        /// What each read lands in before it is handed to its connection.
        private var scratch = [UInt8](repeating: 0, count: 16_384)
        /// This turn's: whether the listening socket is polled, and when the turn began.
        private var room = false
        private var now = ContinuousClock.now

        init(
            server: LoopbackHTTPServer, headFilter: HeadFilter?, taskExecutor: (any TaskExecutor)?,
            handler: @escaping Handler, finished: @escaping @Sendable () -> Void
        ) {
            self.server = server
            self.headFilter = headFilter
            self.taskExecutor = taskExecutor
            self.handler = handler
            self.finished = finished
        }

        /// The connections, the wake pipe and (with room for one more) the listening socket, polled
        /// for at most 100 ms (the read deadlines are checked every turn); nil once the server stopped.
        func prepareTurn() -> (descriptors: [pollfd], timeout: Int32)? {
            guard !server.stopped.withLock({ $0 }) else {
                end()
                return nil
            }
            now = .now
            let now = now
            connections += server.returned.withLock { fds in
                defer { fds.removeAll() }
                return fds.map { Connection(fd: $0, since: now, deadline: now + server.readDeadline, kept: true) }
            }
            room = server.makeRoom(&connections, now: now)
            var entries = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            entries.append(pollfd(fd: server.wake.read, events: Int16(POLLIN), revents: 0))
            if room { entries.append(pollfd(fd: server.socketFD, events: Int16(POLLIN), revents: 0)) }
            return (entries, 100)
        }

        /// Reads what arrived, hands each connection's action over, and accepts one more.
        func finishTurn(_ entries: [pollfd]) {
            if entries[connections.count].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 256)
                while Glibc.read(server.wake.read, &drain, drain.count) > 0 {}
            }
            var open: [Connection] = []
            for (index, var connection) in connections.enumerated() {
                let action =
                    entries[index].revents != 0
                    ? server.read(&connection, headFilter, into: &scratch) : connection.waited(now: now)
                if server.perform(action, on: connection, taskExecutor, handler) { open.append(connection) }
            }
            connections = open
            if room, (entries.last?.revents ?? 0) & Int16(POLLIN) != 0, let fd = server.acceptConnection() {
                connections.append(Connection(fd: fd, since: now, deadline: now + server.readDeadline))
            }
        }

        /// The transport's loop ended (its transport shut down) while the server runs: it goes on
        /// on a thread of its own.
        func loopEnded() {
            BlockingIO.detached { [self] in server.serveLoop(self) }
        }

        /// Closes the connections and lets ``run(headFilter:taskExecutor:_:)`` return (once).
        private func end() {
            connections.forEach { close($0.fd) }
            connections = []
            let finished = self.finished
            self.finished = nil
            finished?()
        }
    }
}
