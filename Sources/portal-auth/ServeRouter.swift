import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `serve` answers each local request with. Before anything else: the request must name the
/// secret as its first path segment, carry no `Origin` (a browser page, DNS rebinding) and name a
/// loopback `Host`; anything else is refused and nothing is contacted. Then `token?url=URL` is
/// the token endpoint (``ServeTokenEndpoint``) and `https/HOST[:PORT]/PATH` the proxy
/// (``ServeProxy``). No answer carries CORS headers.
struct ServeRouter: Sendable {
    let secret: String
    let managers: ServeManagers

    /// The answer to `request`.
    func answer(_ request: LoopbackHTTPRequest) async -> LoopbackHTTPServer.Response {
        if let refusal = Self.refusal(request, secret: secret) { return refusal }
        let (path, query) = request.pathAndQuery
        // After "/SECRET/".
        let rest = path.drop { $0 == "/" }.drop { $0 != "/" }.dropFirst()
        if rest == "token" {
            guard request.method == "GET" else { return .text(405, "the token endpoint answers GET only") }
            return await ServeTokenEndpoint(managers: managers).answer(query: query)
        }
        if rest.hasPrefix("https/") {
            return await ServeProxy(managers: managers, secret: secret).answer(
                request, remote: String(rest.dropFirst("https/".count)), query: query)
        }
        return .text(404, "not found: use BASE/token?url=URL or BASE/https/HOST/PATH")
    }

    /// The refusal of a request that does not name the secret, comes from a browser page
    /// (`Origin`), or names a host that is not loopback (DNS rebinding); nil for one to answer.
    static func refusal(_ request: LoopbackHTTPRequest, secret: String) -> LoopbackHTTPServer.Response? {
        let path = request.pathAndQuery.path
        let first = path.dropFirst().prefix { $0 != "/" }
        guard path.hasPrefix("/"), ServeSecret.matches(first, secret), path.dropFirst(first.count + 1).hasPrefix("/")
        else {
            return .text(403, "forbidden: the URL does not carry this server's secret (portal-auth serve url URL)")
        }
        if request.header("Origin") != nil {
            return .text(403, "forbidden: requests from web pages (with an Origin header) are refused")
        }
        if let host = request.header("Host"), !isLoopbackHost(host) {
            return .text(403, "forbidden: the Host header does not name a loopback address")
        }
        return nil
    }

    /// Whether a `Host` header names a loopback address (or localhost), with or without a port.
    static func isLoopbackHost(_ host: String) -> Bool {
        var name = host
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            name = String(name[name.index(after: name.startIndex)..<close])
        } else if let colon = name.lastIndex(of: ":"), name.filter({ $0 == ":" }).count == 1 {
            name = String(name[..<colon])
        }
        return name.lowercased() == "localhost" || LoopbackAddress.isLoopback(name)
    }
}
