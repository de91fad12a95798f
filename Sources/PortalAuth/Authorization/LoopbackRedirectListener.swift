import Dispatch
import Synchronization

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
    private let socketFD: Int32
    private let cancelled = Mutex(false)

    /// Binds 127.0.0.1 on `port`, or on a free port when nil.
    init(port requested: Int?) throws {
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
                    "port \(requested) on 127.0.0.1 is already in use, so the sign-in redirect cannot come back to it: stop what listens there (ss -ltnp 'sport = :\(requested)'), or register and configure another port",
                    cause: .posix(code: code, message: String(cString: strerror(code))))
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

    /// Waits (on a thread of its own) for the browser to request `path`; returns its query
    /// parameters. `expectedState` decides which page the browser is shown. Throws
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

    private func acceptLoop(path: String, expectedState: String?, timeout: TimeInterval) throws -> [String: String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if cancelled.withLock({ $0 }) {
                throw PortalAuthError(
                    .cancelled, "the sign-in was cancelled before the browser came back; nothing was stored")
            }
            if Date() >= deadline {
                throw PortalAuthError(
                    .timedOut,
                    "the browser did not come back to http://127.0.0.1:\(port)\(path) within \(Int(timeout)) seconds (if the portal showed an error page, an unknown client ID or a redirect URL not registered for the app, fix the app's registration or the options; otherwise finish signing in sooner); nothing was stored",
                    remedy: .raiseLimit(.signInTimeout, value: Int(timeout)))
            }
            var entry = pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            let client = accept(socketFD, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            defer { close(client) }
            guard let target = Self.readRequestTarget(client) else { continue }
            let (requestPath, query) = Self.split(target)
            guard requestPath == path else {
                Self.respond(
                    client, status: "404 Not Found", title: "Not found",
                    message: "This address only receives the portal-auth sign-in.")
                continue
            }
            let parameters = Self.parseQuery(query)
            if let error = parameters["error"] {
                let detail = parameters["error_description"].map { ": \($0)" } ?? ""
                Self.respond(
                    client, status: "200 OK", title: "Sign-in failed",
                    message:
                        "The sign-in did not complete (\(error)\(detail)). You can close this tab and return to the terminal."
                )
            } else if parameters["code"] == nil {
                Self.respond(
                    client, status: "400 Bad Request", title: "Sign-in failed",
                    message: "The answer carried no authorization code. Return to the terminal.")
            } else if let expectedState, parameters["state"] != expectedState {
                Self.respond(
                    client, status: "400 Bad Request", title: "Sign-in failed",
                    message:
                        "This answer does not belong to the sign-in in progress. Return to the terminal and sign in again."
                )
            } else {
                Self.respond(
                    client, status: "200 OK", title: "Signed in",
                    message: "Signed in with portal-auth. You can close this tab.")
            }
            return parameters
        }
    }

    /// The request target of `GET <target> HTTP/1.x`, read within 5 seconds.
    private static func readRequestTarget(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(5)
        while data.count < 65536, Date() < deadline {
            if let end = data.firstIndex(of: UInt8(ascii: "\n")) {
                let parts = String(decoding: data[..<end], as: UTF8.self).split(whereSeparator: {
                    $0 == " " || $0 == "\r"
                })
                guard parts.count >= 2, parts[0] == "GET" else { return nil }
                return String(parts[1])
            }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return nil }
            data.append(contentsOf: buffer[0..<count])
        }
        return nil
    }

    static func split(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    static func parseQuery(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in FormEncoding.decode(query) where result[name] == nil { result[name] = value }
        return result
    }

    private static func respond(_ fd: Int32, status: String, title: String, message: String) {
        let body = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title></head>\
            <body style="font-family:sans-serif;margin:3em"><h1>\(title)</h1><p>\(escapeHTML(message))</p></body></html>
            """
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
            + body
        let bytes = Array(response.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { break }
            offset += written
        }
    }

    static func escapeHTML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
