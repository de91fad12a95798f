import Dispatch
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// No silent waits: when something has been waited for longer than a second, a line on stderr
/// says what (the host, or the browser) and for how long, rewritten each second and cleared
/// when the wait ends. Only when stderr is a terminal: scripts' logs get no progress lines.
final class WaitNotice: Sendable {
    static let shared = WaitNotice(enabled: isatty(2) == 1)

    private struct State {
        var waits: [Int: (what: String, since: ContinuousClock.Instant)] = [:]
        var nextID = 0
        var shown = false
        var tickerStarted = false
        var silenced = false
    }

    let enabled: Bool
    private let state = Locked(State())

    init(enabled: Bool) { self.enabled = enabled }

    /// Starts a wait for `what` ("host:port", "the browser …"); returns its id for ``end(_:)``.
    func begin(_ what: String) -> Int {
        guard enabled else { return -1 }
        let (id, startTicker) = state.withLock { state -> (Int, Bool) in
            state.nextID += 1
            state.waits[state.nextID] = (what, .now)
            defer { state.tickerStarted = true }
            return (state.nextID, !state.tickerStarted)
        }
        if startTicker {
            DispatchQueue.global().async { [self] in
                while true {
                    usleep(250_000)
                    tick()
                }
            }
        }
        return id
    }

    /// Ends a wait; the line goes when nothing is waited for any more.
    func end(_ id: Int) {
        guard enabled, id >= 0 else { return }
        let clear = state.withLock { state -> Bool in
            state.waits[id] = nil
            guard state.waits.isEmpty, state.shown else { return false }
            state.shown = false
            return true
        }
        if clear { Self.write("\r\u{1B}[K") }
    }

    /// Ends every wait whose description starts with `prefix`.
    func end(prefix: String) {
        guard enabled else { return }
        let ids = state.withLock { $0.waits.filter { $0.value.what.hasPrefix(prefix) }.map(\.key) }
        ids.forEach(end)
    }

    /// No more notices: the terminal belongs to another program (`exec`'s command).
    func silence() {
        guard enabled else { return }
        clearBeforeOutput()
        state.withLock { $0.silenced = true }
    }

    /// Clears the line before other output goes to the terminal (the next tick draws it again).
    func clearBeforeOutput() {
        guard enabled else { return }
        let clear = state.withLock { state -> Bool in
            defer { state.shown = false }
            return state.shown
        }
        if clear { Self.write("\r\u{1B}[K") }
    }

    private func tick() {
        let line = state.withLock { state -> String? in
            // The oldest wait is the one to show.
            guard !state.silenced, let oldest = state.waits.values.min(by: { $0.since < $1.since }) else {
                return nil
            }
            let elapsed = ContinuousClock.now - oldest.since
            guard elapsed >= .seconds(1) else { return nil }
            state.shown = true
            return
                "\r\u{1B}[Kportal-auth: waiting for \(oldest.what) (\(elapsed.components.seconds) s; Ctrl-C to cancel)"
        }
        if let line { Self.write(line) }
    }

    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }
}

/// The CLI's transport: the given one, with every request shown by ``WaitNotice`` while it lasts
/// longer than a second.
struct NoticingTransport: HTTPTransport {
    let base: CurlTransport

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        // A request after a browser sign-in means the browser came back.
        WaitNotice.shared.end(prefix: "the browser")
        let id = WaitNotice.shared.begin(Self.place(request.url))
        defer { WaitNotice.shared.end(id) }
        return try await base.send(request, options: options)
    }

    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        let id = WaitNotice.shared.begin("\(host):\(port)")
        defer { WaitNotice.shared.end(id) }
        return try await base.serverCertificate(host: host, port: port)
    }

    /// `host:port` of a URL.
    static func place(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host(percentEncoded: false) ?? "?"
        return "\(host.contains(":") ? "[\(host)]" : host):\(url.port ?? (scheme == "http" ? 80 : 443))"
    }
}
