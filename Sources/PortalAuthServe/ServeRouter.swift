import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `serve` answers each local request with. Before anything else: the request must name the
/// secret as its first path segment, carry nothing only a web page sends (``refusal(_:secret:)``)
/// and name a loopback `Host`; anything else is refused on its head (``headFilter``, which the
/// server asks of every head before it reads the body) and nothing is contacted. Then
/// `token?url=URL` is the token endpoint (``ServeTokenEndpoint``) and `https/HOST[:PORT]/PATH` the
/// proxy (``ServeProxy``). Every answer, refusals included, carries serve's policy
/// (``hardened(_:)``): a browser runs nothing it is served in serve's origin.
struct ServeRouter: Sendable {
    let secret: String
    let managers: ServeManagers
    /// How an error's message reads to the client (``LocalCredentialServer``'s `describe`).
    let describe: @Sendable (PortalAuthError) -> String

    /// The headers every answer carries: the page is sandboxed (an opaque origin, no scripts, forms,
    /// popups or navigation of other windows), never framed, never read as another type, sends no
    /// `Referer` (which would carry the secret), and may not be embedded by another origin's page.
    static let policyHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "sandbox; frame-ancestors 'none'"), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    /// `response` with ``policyHeaders`` (replacing any of the same name).
    static func hardened(_ response: LoopbackHTTPServer.Response) -> LoopbackHTTPServer.Response {
        var response = response
        response.headers =
            response.headers.filter { header in
                !policyHeaders.contains { ASCIIText.equalsIgnoringCase($0.name, header.name) }
            } + policyHeaders
        return response
    }

    /// The answer to `request`, with serve's policy: a request whose head ``headRefusal(_:secret:)``
    /// let through (``LocalCredentialServer`` has its server ask that of every head, before the
    /// body is read), so the refusal is not decided again here.
    func answer(_ request: LoopbackHTTPRequest) async -> LoopbackHTTPServer.Response {
        Self.hardened(await route(request))
    }

    /// What the loopback server asks of every request's head (``headRefusal(_:secret:)``): the one
    /// place serve's refusals are decided.
    var headFilter: LoopbackHTTPServer.HeadFilter {
        let secret = secret
        return { Self.headRefusal($0, secret: secret) }
    }

    /// The refusal of `request` on its head, with serve's policy; nil for one to answer.
    static func headRefusal(_ request: LoopbackHTTPRequest, secret: String) -> LoopbackHTTPServer.Response? {
        refusal(request, secret: secret).map(hardened)
    }

    private func route(_ request: LoopbackHTTPRequest) async -> LoopbackHTTPServer.Response {
        let (path, query) = request.pathAndQuery
        // (Refused on its head already: kept here too, as it is what keeps every other program out.)
        guard let rest = Self.afterSecret(path, secret) else { return .text(403, "forbidden") }
        if rest == "token" {
            guard request.method == "GET" else { return .text(405, "the token endpoint answers GET only") }
            // (On the global executor: rendering the answer reads the store on the calling thread.)
            let endpoint = ServeTokenEndpoint(managers: managers, describe: describe)
            return await withTaskExecutorPreference(globalConcurrentExecutor) { await endpoint.answer(query: query) }
        }
        if rest.hasPrefix("https/") {
            return await ServeProxy(managers: managers, describe: describe, secret: secret).answer(
                request, remote: String(rest.dropFirst("https/".count)), query: query)
        }
        return .text(404, "not found: use BASE/token?url=URL or BASE/https/HOST/PATH")
    }

    /// The refusal of a request that does not name the secret, comes from a web page, or names a
    /// host that is not loopback (DNS rebinding); nil for one to answer. What only a page sends: an
    /// `Origin` of any value (`null` from a sandboxed page included), a `Sec-Fetch-Site` other than
    /// `none` (`none` is a URL the user typed or bookmarked; a page's requests and navigations, its
    /// images, frames and forms, say `same-origin`, `same-site` or `cross-site`), and a `Referer`
    /// that holds the secret (a page served through serve). curl, GDAL, QGIS and requests send none.
    static func refusal(_ request: LoopbackHTTPRequest, secret: String) -> LoopbackHTTPServer.Response? {
        guard afterSecret(request.pathAndQuery.path, secret) != nil else {
            return .text(403, "forbidden: the URL does not carry this server's secret (ask for the local URL again)")
        }
        if request.header("Origin") != nil {
            return .text(403, "forbidden: requests from web pages (with an Origin header) are refused")
        }
        if let site = request.header("Sec-Fetch-Site"), site.lowercased() != "none" {
            return .text(403, "forbidden: requests from web pages (with a Sec-Fetch-Site header) are refused")
        }
        if let referer = request.header("Referer"), referer.contains(secret) {
            return .text(403, "forbidden: requests from pages served through serve are refused")
        }
        if let host = request.header("Host"), !isLoopbackHost(host) {
            return .text(403, "forbidden: the Host header does not name a loopback address")
        }
        return nil
    }

    /// What follows `/SECRET/` in `path`; nil when its first segment is not the secret (or is the
    /// last). Read in bytes.
    static func afterSecret(_ path: String, _ secret: String) -> Substring? {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        let start = bytes.index(after: bytes.startIndex)
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")),
            ServeSecret.matches(Substring(bytes[start..<end]), secret)
        else { return nil }
        return Substring(bytes[bytes.index(after: end)...])
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
