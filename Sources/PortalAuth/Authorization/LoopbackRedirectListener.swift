import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The loopback end of an authorization-code redirect (RFC 8252 §7.3): a listener on 127.0.0.1
/// only, that waits for the browser to arrive at the redirect path, answers it with a short page,
/// and hands back the query parameters.
///
/// It runs on the local server `portal-auth serve` runs on (``LoopbackHTTPServer``: plain POSIX
/// sockets and a thread of its own, so nothing is loaded that a token lookup would pay for, and
/// the wait never blocks Swift's cooperative pool), which bounds what a connection may send and
/// how long it may take. Every request is answered on its head alone. The first redirect of this
/// sign-in stops the server (a request read in the same pass of its loop is told the sign-in is
/// over; later ones are never read) and ends the wait once its page has gone out.
final class LoopbackRedirectListener: Sendable {
    /// The port it listens on.
    let port: Int
    /// How long one connection may take to send its request before it is closed.
    let readDeadline: Duration
    private let server: LoopbackHTTPServer
    /// Whether ``waitForRedirect(path:expectedState:timeout:)`` was called (it is, once).
    private let waited = Locked(false)

    /// At most this many connections are read at once (the rest wait in the kernel's queue; one
    /// that holds a place without sending its request is closed for a new one after a second).
    static let maximumConnections = 16

    /// Binds 127.0.0.1 on `port`, or on a free port when nil; each connection has `readDeadline`
    /// to send its request. The kernel queues at most 16 connections (a flood of them cannot keep
    /// the browser waiting long), and one that holds a place without sending its request makes
    /// way for a new one after a quarter of a second.
    init(port requested: Int?, readDeadline: Duration = .seconds(2)) throws {
        self.readDeadline = readDeadline
        let socket: ListeningSocket
        do {
            socket = try ListeningSocket.bind(
                LoopbackAddress(host: "127.0.0.1", port: requested ?? 0), backlog: Int32(Self.maximumConnections))
        } catch let error as PortalAuthError where ListeningSocket.isAddressInUse(error) && requested != nil {
            throw PortalAuthError(
                .invalidConfiguration,
                "port \(requested ?? 0) on 127.0.0.1 is already in use, so the sign-in redirect cannot come back to it",
                remedy: .freePort(requested ?? 0), cause: error.cause)
        }
        port = socket.address.port
        server = try LoopbackHTTPServer(
            socket: socket, maximumConnections: Self.maximumConnections, readDeadline: readDeadline, writeTimeout: 5,
            evictAfter: .milliseconds(250),
            limits: LoopbackHTTPRequest.Limits(headBytes: LoopbackRedirectRequest.maximumRequestSize, bodyBytes: 0))
    }

    /// Waits for the browser to request `path` with `expectedState` (when not nil); returns its
    /// query parameters once the browser has been sent its page. A request with another state is
    /// shown an error page and the wait goes on: anyone on this machine can reach the port. Throws
    /// ``PortalAuthError/Code/timedOut`` after `timeout` seconds (of wall time: a suspended machine's
    /// too) and ``PortalAuthError/Code/cancelled`` when the task is cancelled. A listener waits once.
    func waitForRedirect(path: String, expectedState: String?, timeout: TimeInterval) async throws -> [String: String] {
        let waitedBefore = waited.withLock { waited in
            defer { waited = true }
            return waited
        }
        precondition(!waitedBefore, "a redirect listener waits once")
        let wait = RedirectWait()
        let server = server
        let port = port
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                wait.start(continuation)
                Task {
                    await server.run(headFilter: { request in
                        Self.answer(request, path: path, expectedState: expectedState, wait: wait, server: server)
                    }) { _ in .text(404, "not found") }
                    // The loop has ended: the redirect's page went out (or could not) before the caller goes on.
                    wait.finishWithTheRedirect()
                }
                // (The server weakly: a wait that ended otherwise keeps nothing open until the time is up.)
                DispatchQueue.global().asyncAfter(wallDeadline: .now() + timeout) { [weak server] in
                    let timedOut = Self.timedOut(port: port, path: path, timeout: timeout, turnedAway: wait.turnedAway)
                    if wait.finish(.failure(timedOut)) { server?.stop() }
                }
            }
        } onCancel: {
            let cancelled = PortalAuthError(
                .cancelled, "the sign-in was cancelled before the browser came back; nothing was stored")
            if wait.finish(.failure(cancelled)) { server.stop() }
        }
        return wait.parameters ?? [:]
    }

    /// The error of a wait that ran out of time.
    private static func timedOut(port: Int, path: String, timeout: TimeInterval, turnedAway: Int) -> PortalAuthError {
        let foreign =
            turnedAway == 0
            ? ""
            : " (\(turnedAway) answer\(turnedAway == 1 ? "" : "s") with a state that does not belong to this sign-in came and \(turnedAway == 1 ? "was" : "were") turned away)"
        return PortalAuthError(
            .timedOut,
            "the browser did not come back to http://127.0.0.1:\(port)\(path) within \(Int(timeout)) seconds\(foreign) "
                + "(or the portal showed an error page: an unknown client ID, or a redirect URL not registered for "
                + "the app); nothing was stored",
            remedy: .raiseLimit(.signInTimeout, value: Int(timeout)))
    }

    /// The answer to one request, on its head (``LoopbackRedirectRequest/verdict(method:target:path:expectedState:)``):
    /// the first redirect of this sign-in ends the wait and stops the server.
    private static func answer(
        _ request: LoopbackHTTPRequest, path: String, expectedState: String?, wait: RedirectWait,
        server: LoopbackHTTPServer
    ) -> LoopbackHTTPServer.Response {
        let notHere = "This address only receives the portal-auth sign-in."
        switch LoopbackRedirectRequest.verdict(
            method: request.method, target: request.target, path: path, expectedState: expectedState)
        {
        case .badRequest: return page(400, title: "Bad request", message: notHere)
        case .notFound: return page(404, title: "Not found", message: notHere)
        case .turnedAway:
            wait.turnAway()
            return page(
                400, title: "Sign-in failed",
                message:
                    "This answer does not belong to the sign-in in progress, which goes on. Return to the terminal if "
                    + "you started one.")
        case .redirect(let parameters):
            guard wait.record(parameters) else {
                return page(
                    400, title: "Sign-in over",
                    message: "The sign-in this address waited for is over. Return to the terminal.")
            }
            server.stop()
            return redirectPage(parameters)
        }
    }

    /// The page the browser shows once the redirect of this sign-in has arrived.
    private static func redirectPage(_ parameters: [String: String]) -> LoopbackHTTPServer.Response {
        if let error = parameters["error"] {
            let detail = parameters["error_description"].map { ": \($0)" } ?? ""
            return page(
                200, title: "Sign-in failed",
                message:
                    "The sign-in did not complete (\(error)\(detail)). You can close this tab and return to the "
                    + "terminal.")
        }
        guard parameters["code"] != nil else {
            return page(
                400, title: "Sign-in failed",
                message: "The answer carried no authorization code. Return to the terminal.")
        }
        return page(200, title: "Signed in", message: "Signed in with portal-auth. You can close this tab.")
    }

    /// A short HTML page, never cached.
    private static func page(_ status: Int, title: String, message: String) -> LoopbackHTTPServer.Response {
        let body = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title></head>\
            <body style="font-family:sans-serif;margin:3em"><h1>\(title)</h1><p>\(LoopbackRedirectRequest.escapeHTML(message))</p></body></html>
            """
        return LoopbackHTTPServer.Response(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(body.utf8))
    }
}

/// One sign-in's wait for its redirect: ended once, by the redirect, the time limit or a
/// cancellation, whichever comes first; and how many answers were turned away meanwhile.
private final class RedirectWait: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var result: Result<[String: String], any Error>?
        /// The redirect, once it came (the wait ends with it when the server's loop has ended).
        var redirect: [String: String]?
        var turnedAway = 0
    }
    private let state = Locked(State())

    /// How many answers with another sign-in's state came.
    var turnedAway: Int { state.withLock { $0.turnedAway } }
    /// The redirect's parameters, once it came.
    var parameters: [String: String]? { state.withLock { try? $0.result?.get() } }

    /// Counts an answer turned away.
    func turnAway() { state.withLock { $0.turnedAway += 1 } }

    /// Waits with `continuation` (resumed at once when the wait already ended).
    func start(_ continuation: CheckedContinuation<Void, any Error>) {
        let ended = state.withLock { state -> Result<[String: String], any Error>? in
            if state.result == nil { state.continuation = continuation }
            return state.result
        }
        if let ended { continuation.resume(with: ended.map { _ in () }) }
    }

    /// Records the redirect of this sign-in; false when one came already, or the wait ended.
    func record(_ parameters: [String: String]) -> Bool {
        state.withLock { state in
            guard state.redirect == nil, state.result == nil else { return false }
            state.redirect = parameters
            return true
        }
    }

    /// Ends the wait with the recorded redirect, if one came.
    func finishWithTheRedirect() {
        guard let redirect = state.withLock({ $0.redirect }) else { return }
        _ = finish(.success(redirect), evenAfterTheRedirect: true)
    }

    /// Ends the wait with `result`; false when it had ended already, or a redirect came (the first
    /// end wins, and a redirect over a time limit or a cancellation).
    func finish(_ result: Result<[String: String], any Error>, evenAfterTheRedirect: Bool = false) -> Bool {
        let (first, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Void, any Error>?) in
            guard state.result == nil, evenAfterTheRedirect || state.redirect == nil else { return (false, nil) }
            state.result = result
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        continuation?.resume(with: result.map { _ in () })
        return first
    }
}
