import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `BASE/https/HOST[:PORT]/PATH[?QUERY]`: the authenticating reverse proxy. The request goes to
/// `https://HOST[:PORT]/PATH[?QUERY]` through the manager, which attaches the credential the core
/// decides for that URL (and renews it, once for every client at once), only when
/// ``AuthenticationManager/forwardingPermission(for:)`` says a stored or environment credential covers it: anything
/// else is refused with 403 and never contacted.
///
/// GET, and POST with a form body (the ArcGIS REST way). Whatever authorization the client sent
/// is dropped: no client header is forwarded (`Authorization`, `X-Esri-Authorization`, `Cookie`
/// and the rest), and `token` parameters are removed from the query and the form. The answer's
/// status, the headers a client reads a body by (``passedResponseHeaders``) and body come back.
///
/// The answer's body is passed on as it arrives (``ResponseBodyStream``) once it is longer than
/// ``streamAfter`` and its status is a success: status and headers first, then the body, with
/// the upstream `Content-Length` when the body is not decoded, else chunked; a client that reads
/// slowly pauses the upstream transfer (at most ``streamBuffer`` bytes wait), and one that stops
/// reading for the server's write timeout ends it. A shorter answer, and every other status, is
/// read whole (within the transport's limit) as before, so that a refused token (HTTP 498/499, or
/// an ArcGIS error in a 200 JSON body, which is short) is still renewed and the request sent
/// again. A request body is read whole up to 1 MiB (``requestLimits``), and sent again after a
/// refusal; a longer one streams on as the client sends it, its `token` parameters blanked on the
/// way (``FormTokenFilter``: each byte becomes `&`, so its length holds), and is sent once: after a refusal the credential is renewed
/// and the client gets the refusal (an ArcGIS 498) to send the request again.
struct ServeProxy {
    let managers: ServeManagers
    /// How an error's message reads to the client (``LocalCredentialServer``'s `describe`).
    let describe: @Sendable (PortalAuthError) -> String
    /// The secret of the base URL (a redirect's `Location` is rewritten under it).
    let secret: String

    /// The redirect statuses: passed back to the client with the local URL of their target, never
    /// followed here.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// How much of a success answer's body is read whole before the rest is streamed: an ArcGIS
    /// error or refusal is far shorter.
    static let streamAfter = 256 << 10
    /// How many bytes of a streamed body may wait for a slow client before the upstream transfer
    /// is paused.
    static let streamBuffer = 1 << 20

    /// What the local server reads of a request: a form body up to 1 MiB is read whole (and sent
    /// again after a refusal); a longer one, up to 1 GiB, streams on as it arrives (once).
    static let requestLimits = LoopbackHTTPRequest.Limits(bodyBytes: 1 << 20, streamedBodyBytes: 1 << 30)

    /// The response headers passed back, by lower-case name: what a client needs to read a body
    /// (type, length, ranges, caching, validators, dates). Every other header stays here: those of
    /// the hop, a decoded body's `Content-Encoding`, and every header that makes a browser act on
    /// a page served in serve's origin (`Set-Cookie`, CORS, `Refresh`, `Link`, `Referrer-Policy`,
    /// the upstream's CSP, reporting and speculation headers, and whatever is invented next), so an
    /// upstream cannot have a browser do anything as serve. ``ServeRouter/hardened(_:)`` adds serve's
    /// own policy to every answer.
    static let passedResponseHeaders: Set<String> = [
        "content-type", "content-disposition", "content-language", "content-range", "accept-ranges",
        "cache-control", "expires", "pragma", "age", "date", "last-modified", "etag", "vary", "retry-after",
    ]

    /// Whether the response header `name` is not passed back (not in ``passedResponseHeaders``).
    static func dropsResponseHeader(_ name: String) -> Bool {
        !passedResponseHeaders.contains(name.lowercased())
    }

    func answer(_ request: LoopbackHTTPRequest, remote: String, query: String) async -> LoopbackHTTPServer.Response {
        let method: ArcGISRequest.Method
        switch request.method {
        case "GET": method = .automatic
        case "POST": method = .post
        default: return .text(405, "the proxy forwards GET and POST only")
        }
        do {
            let url = try Self.remoteURL(remote)
            var parameters = Self.withoutTokens(FormEncoding.decode(query))
            if request.method == "POST", !request.body.isEmpty || request.bodyStream != nil {
                let type = request.header("Content-Type")?.lowercased() ?? ""
                guard type.hasPrefix("application/x-www-form-urlencoded") else {
                    return .text(415, "the proxy forwards form bodies only (application/x-www-form-urlencoded)")
                }
                parameters += Self.withoutTokens(FormEncoding.decode(String(decoding: request.body, as: UTF8.self)))
            }
            // A longer form streams on, its token parameters dropped on the way (sent once: no retry).
            // Only a POST's: a GET with a body is refused, never turned into a POST.
            if let body = request.bodyStream {
                guard request.method == "POST" else { return .text(400, "a GET request with a body is not forwarded") }
                guard body.apply(FormTokenFilter()) else {
                    return .text(500, "the request body could not be filtered: not forwarded")
                }
            }
            let manager = try await managers.manager(for: url)
            let permission = try await manager.forwardingPermission(for: url)
            if case .refused = permission {
                return ServeErrors.body(
                    status: 403, code: 403,
                    message: "no stored or environment credential covers \(ServerContext.describe(url)): not forwarded")
            }
            var forwarded = ArcGISRequest(url: url, parameters: parameters, method: method, expectsJSON: false)
            forwarded.followsRedirects = false
            forwarded.bodyStream = request.bodyStream
            let stream = ResponseBodyStream(streamAfter: Self.streamAfter, capacity: Self.streamBuffer)
            forwarded.responseStream = stream
            let response = try await Self.send(forwarded, permission, with: manager)
            let headers = response.http.headers.filter { !Self.dropsResponseHeader($0.name) }
            if stream.isCommitted {
                return LoopbackHTTPServer.Response(
                    status: response.http.status, headers: headers, bodyStream: stream,
                    bodyLength: Self.streamedLength(response.http))
            }
            if Self.redirectStatuses.contains(response.http.status), let location = response.http.header("Location") {
                return await redirect(response.http, to: location, from: url)
            }
            return LoopbackHTTPServer.Response(status: response.http.status, headers: headers, body: response.http.body)
        } catch {
            return ServeErrors.response(for: error, describe: describe)
        }
    }

    /// Sends `forwarded` with `manager` on the decision `permission` holds, so that the request loop
    /// does not decide it again (else as the manager sends any request); its response stream is
    /// aborted when it fails.
    private static func send(
        _ forwarded: ArcGISRequest, _ permission: ForwardingPermission, with manager: AuthenticationManager
    ) async throws -> ArcGISResponse {
        do {
            if case .decided(let decision) = permission { return try await manager.send(forwarded, as: decision) }
            return try await manager.send(forwarded)
        } catch {
            forwarded.responseStream?.abort()
            throw error
        }
    }

    /// The length of a streamed body as the server announced it: its `Content-Length`, when the
    /// body comes as sent (no `Content-Encoding`, which the transport decodes, and no
    /// `Transfer-Encoding`, whose length wins over it); else nil (chunked).
    static func streamedLength(_ response: TransportResponse) -> Int? {
        guard response.header("Transfer-Encoding") == nil,
            response.header("Content-Encoding").map({ $0.lowercased() == "identity" }) ?? true,
            let text = response.header("Content-Length"), !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// A redirect of `url` to `location`, for the client to follow through the proxy: its
    /// `Location` is the local URL of the target (`/SECRET/https/HOST/PATH`) when a stored or
    /// environment credential covers the target; else 502 (the target is never contacted: the
    /// redirect is not followed here, and the client is not sent there). A 307 or 308, which has
    /// the client send the same request, body included, again, passes only within the reach of
    /// the credential `url` went with, as the request loop follows one (``keepsCredential(from:to:)``):
    /// a server never has a client's form resent with another credential.
    func redirect(
        _ response: TransportResponse, to location: String, from url: URL
    ) async -> LoopbackHTTPServer.Response {
        guard let next = URL(string: location, relativeTo: url)?.absoluteURL,
            let strict = try? StrictURL.normalized(next), strict.scheme?.lowercased() == "https",
            let manager = try? await managers.manager(for: strict),
            (try? await manager.mayForward(strict)) == true,
            let local = try? Self.localURL(for: strict, base: "/\(secret)/")
        else {
            return ServeErrors.body(
                status: 502, code: 502,
                message: "\(ServerContext.describe(url)) redirected to a URL no stored or environment credential "
                    + "covers: not followed")
        }
        if response.status == 307 || response.status == 308, await !keepsCredential(from: url, to: strict) {
            return ServeErrors.body(
                status: 502, code: 502,
                message: "\(ServerContext.describe(url)) redirected a request with its body to "
                    + "\(ServerContext.describe(strict)), which another credential covers: not followed")
        }
        var headers = response.headers.filter { !Self.dropsResponseHeader($0.name) }
        headers.append(("Location", local))
        return LoopbackHTTPServer.Response(status: response.status, headers: headers, body: response.body)
    }

    /// Whether a request that went to `url` may be resent to `next` (the library's rule for a
    /// redirect that resends a request: ``ScopedCredential/resendKeepsCredential(_:from:to:)``,
    /// which the request loop follows), with the credential the core gives for `url` (none when it
    /// cannot be read: then only the same host and port).
    func keepsCredential(from url: URL, to next: URL) async -> Bool {
        var credential: (any ArcGISCredential)?
        if let manager = try? await managers.manager(for: url) {
            credential = (try? await manager.forwardingDecision(for: url))?.credential
        }
        return ScopedCredential.resendKeepsCredential(credential, from: url, to: next)
    }

    /// `https://` + `remote` (`HOST[:PORT]/PATH`, no query), read strictly; a user part, an empty
    /// host or a URL that does not read back the same is refused.
    static func remoteURL(_ remote: String) throws -> URL {
        let authority = remote.utf8.prefix { $0 != UInt8(ascii: "/") }
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")), !remote.utf8.contains(UInt8(ascii: "\\"))
        else {
            throw PortalAuthError(.invalidURL, "the proxy's path must be https/HOST[:PORT]/PATH")
        }
        return try StrictURL.read("https://" + remote)
    }

    /// The parameters without any a reader upstream could take as a token
    /// (``CredentialParameterName``): a client's own token never goes on.
    static func withoutTokens(_ parameters: [(String, String)]) -> [(String, String)] {
        parameters.filter { !CredentialParameterName.isCredential($0.0) }
    }

    /// The local URL of `remote` under `base` (`BASE/https/HOST[:PORT]/PATH?QUERY`); only https URLs.
    package static func localURL(for remote: URL, base: String) throws -> String {
        guard remote.scheme?.lowercased() == "https", let host = remote.host(percentEncoded: true), !host.isEmpty
        else {
            throw PortalAuthError(
                .invalidURL, "serve forwards to https URLs only", remedy: .useHTTPS(url: remote))
        }
        let authority = (host.contains(":") ? "[\(host)]" : host) + (remote.port.map { ":\($0)" } ?? "")
        let query = remote.query(percentEncoded: true).map { "?" + $0 } ?? ""
        return base + "https/" + authority + remote.path(percentEncoded: true) + query
    }
}
