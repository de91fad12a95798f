import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The loopback end of an authorization-code redirect (RFC 8252 §7.3): a tiny HTTP listener on
/// 127.0.0.1 only, that waits for the browser to arrive at the redirect path, answers it with a
/// short page, and hands back the query parameters.
///
/// Plain POSIX sockets on a thread of its own: nothing is loaded that a token lookup would pay
/// for, and the wait never blocks Swift's cooperative pool.
final class LoopbackRedirectListener: Sendable {
    /// The port it listens on.
    let port: Int
    /// How long one connection may take to send its request before it is closed.
    let readDeadline: Duration
    private let socketFD: Int32
    private let cancelled = Locked(false)

    /// Binds 127.0.0.1 on `port`, or on a free port when nil; each connection has `readDeadline`
    /// to send its request.
    init(port requested: Int?, readDeadline: Duration = .seconds(2)) throws {
        self.readDeadline = readDeadline
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Self.posixError("open a socket for the sign-in redirect") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(requested ?? 0).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 {
            let code = errno
            close(fd)
            if code == EADDRINUSE, let requested {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "port \(requested) on 127.0.0.1 is already in use, so the sign-in redirect cannot come back to it",
                    remedy: .freePort(requested), cause: .posix(code: code, message: String(cString: strerror(code))))
            }
            throw Self.posixError("listen on 127.0.0.1:\(requested ?? 0) for the sign-in redirect", code: code)
        }
        guard listen(fd, 16) == 0 else {
            let code = errno; close(fd); throw Self.posixError("listen for the sign-in redirect", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: actual.sin_port))
        socketFD = fd
    }

    deinit { close(socketFD) }

    private static func posixError(_ what: String, code: Int32 = errno) -> PortalAuthError {
        let text = String(cString: strerror(code))
        return PortalAuthError(.connectionFailed, "cannot \(what): \(text)", cause: .posix(code: code, message: text))
    }

    /// Waits (on a thread of its own) for the browser to request `path` with `expectedState`
    /// (when not nil); returns its query parameters. A request with another state is shown an
    /// error page and the wait goes on: anyone on this machine can reach the port. Throws
    /// ``PortalAuthError/Code/timedOut`` after `timeout` seconds and ``PortalAuthError/Code/cancelled``
    /// when the task is cancelled.
    func waitForRedirect(path: String, expectedState: String?, timeout: TimeInterval) async throws -> [String: String] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<[String: String], any Error>) in
                BlockingIO.detached { [self] in
                    continuation.resume(
                        with: Result { try self.acceptLoop(path: path, expectedState: expectedState, timeout: timeout) }
                    )
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }

    /// One browser connection: what it has sent so far, and until when it may take to send it.
    private struct Connection {
        let fd: Int32
        var received: [UInt8] = []
        let deadline: ContinuousClock.Instant
    }

    /// What serving a connection came to.
    private enum Served {
        /// The request is not complete yet.
        case waiting
        /// Answered (or dropped); the sign-in goes on.
        case done
        /// Answered, and turned away: its state does not belong to this sign-in.
        case turnedAway
        /// The redirect of this sign-in: its parameters.
        case redirect([String: String])
    }

    /// At most this many connections are read at once (the oldest is dropped for a new one).
    static let maximumConnections = 16

    /// Serves every connection at once (one `poll` over the listening socket and each open
    /// connection), each with its own read deadline, so idle or slow connections cannot hold up
    /// the browser's redirect. A request whose state does not match `expectedState` gets an
    /// error page and the wait goes on.
    private func acceptLoop(path: String, expectedState: String?, timeout: TimeInterval) throws -> [String: String] {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var connections: [Connection] = []
        var turnedAway = 0
        defer { connections.forEach { close($0.fd) } }
        while true {
            try checkStillWaiting(deadline: deadline, path: path, timeout: timeout, turnedAway: turnedAway)
            var entries = [pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)]
            entries += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, nfds_t(entries.count), 100) >= 0 else { continue }
            let now = ContinuousClock.now
            var open: [Connection] = []
            for (index, var connection) in connections.enumerated() {
                let ready = entries[index + 1].revents != 0
                switch ready ? serve(&connection, path: path, expectedState: expectedState) : .waiting {
                case .waiting where now < connection.deadline: open.append(connection)
                case .waiting, .done: close(connection.fd)
                case .turnedAway: close(connection.fd); turnedAway += 1
                case .redirect(let parameters):
                    close(connection.fd)
                    // The deferred close is the only owner of the rest: never the one just closed
                    // (its number may already be another thread's socket).
                    connections = open + connections[(index + 1)...]
                    return parameters
                }
            }
            connections = open
            if entries[0].revents & Int16(POLLIN) != 0, let fd = acceptConnection() {
                if connections.count >= Self.maximumConnections { close(connections.removeFirst().fd) }
                connections.append(Connection(fd: fd, deadline: now + readDeadline))
            }
        }
    }

    private func checkStillWaiting(
        deadline: ContinuousClock.Instant, path: String, timeout: TimeInterval, turnedAway: Int
    ) throws {
        if cancelled.withLock({ $0 }) {
            throw PortalAuthError(
                .cancelled, "the sign-in was cancelled before the browser came back; nothing was stored")
        }
        guard ContinuousClock.now >= deadline else { return }
        let foreign =
            turnedAway == 0
            ? ""
            : " (\(turnedAway) answer\(turnedAway == 1 ? "" : "s") with a state that does not belong to this sign-in came and \(turnedAway == 1 ? "was" : "were") turned away)"
        throw PortalAuthError(
            .timedOut,
            "the browser did not come back to http://127.0.0.1:\(port)\(path) within \(Int(timeout)) seconds\(foreign) "
                + "(or the portal showed an error page: an unknown client ID, or a redirect URL not registered for "
                + "the app); nothing was stored",
            remedy: .raiseLimit(.signInTimeout, value: Int(timeout)))
    }

    /// A new connection, non-blocking, or nil.
    private func acceptConnection() -> Int32? {
        let fd = accept(socketFD, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Reads what the connection has sent; once its request head is complete, answers it.
    private func serve(_ connection: inout Connection, path: String, expectedState: String?) -> Served {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(connection.fd, &buffer, buffer.count)
        if count < 0 { return errno == EAGAIN || errno == EINTR ? .waiting : .done }
        if count == 0 { return .done }
        connection.received.append(contentsOf: buffer[0..<count])
        guard let head = LoopbackRedirectRequest.requestLine(connection.received) else {
            if connection.received.count <= LoopbackRedirectRequest.maximumRequestSize { return .waiting }
            Self.respond(
                connection.fd, status: "431 Request Header Fields Too Large", title: "Request too large",
                message: "This address only receives the portal-auth sign-in.")
            return .done
        }
        return answer(connection.fd, requestLine: head, path: path, expectedState: expectedState)
    }

    /// Answers one complete request (``LoopbackRedirectRequest/verdict(requestLine:path:expectedState:)``).
    private func answer(_ fd: Int32, requestLine: String, path: String, expectedState: String?) -> Served {
        let notHere = "This address only receives the portal-auth sign-in."
        switch LoopbackRedirectRequest.verdict(requestLine: requestLine, path: path, expectedState: expectedState) {
        case .badRequest:
            Self.respond(fd, status: "400 Bad Request", title: "Bad request", message: notHere)
            return .done
        case .notFound:
            Self.respond(fd, status: "404 Not Found", title: "Not found", message: notHere)
            return .done
        case .turnedAway:
            Self.respond(
                fd, status: "400 Bad Request", title: "Sign-in failed",
                message:
                    "This answer does not belong to the sign-in in progress, which goes on. Return to the terminal if "
                    + "you started one."
            )
            return .turnedAway
        case .redirect(let parameters):
            answerRedirect(fd, parameters)
            return .redirect(parameters)
        }
    }

    /// The page the browser shows once the redirect of this sign-in has arrived.
    private func answerRedirect(_ fd: Int32, _ parameters: [String: String]) {
        if let error = parameters["error"] {
            let detail = parameters["error_description"].map { ": \($0)" } ?? ""
            Self.respond(
                fd, status: "200 OK", title: "Sign-in failed",
                message:
                    "The sign-in did not complete (\(error)\(detail)). You can close this tab and return to the "
                    + "terminal."
            )
        } else if parameters["code"] == nil {
            Self.respond(
                fd, status: "400 Bad Request", title: "Sign-in failed",
                message: "The answer carried no authorization code. Return to the terminal.")
        } else {
            Self.respond(
                fd, status: "200 OK", title: "Signed in", message: "Signed in with portal-auth. You can close this tab."
            )
        }
    }

    private static func respond(_ fd: Int32, status: String, title: String, message: String) {
        let body = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title></head>\
            <body style="font-family:sans-serif;margin:3em"><h1>\(title)</h1><p>\(LoopbackRedirectRequest.escapeHTML(message))</p></body></html>
            """
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: "
            + "\(body.utf8.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
            + body
        let bytes = Array(response.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { break }
            offset += written
        }
    }
}
