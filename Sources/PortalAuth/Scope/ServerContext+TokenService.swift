#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where a context's passwords, refresh tokens, client secrets and tokens to exchange may go: its
/// own token endpoints and nowhere else (docs/security.md, "Token services").
extension ServerContext {
    /// The paths of a token service, below the context's path (lower-cased): a portal's
    /// generateToken (and its older form), an ArcGIS Server's.
    static let tokenServicePaths: Set<String> = [
        "/sharing/rest/generatetoken", "/sharing/generatetoken", "/tokens/generatetoken", "/tokens",
    ]

    /// The portal's own generateToken, derived from the portal's URL: where a password for this
    /// portal, or one of its tokens to exchange for a server token, goes.
    public var portalTokenServiceURL: URL { URL(string: url + "/sharing/rest/generateToken")! }

    /// Whether a token service at `url` may receive this context's passwords: a token service
    /// path (`…/sharing/rest/generateToken`, `…/tokens/generateToken`) right below this context,
    /// on the same scheme, host and port, or both in ArcGIS Online (an organization signs in
    /// through www.arcgis.com's token service; "evilarcgis.com" is not ArcGIS Online); never with
    /// a query string or a fragment (`sharing/proxy?https://elsewhere` forwards what it gets).
    func isOwnTokenService(_ url: URL) -> Bool {
        let text = url.absoluteString
        guard !text.contains("?"), !text.contains("#"), let service = try? ServerContext.parts(of: url) else {
            return false
        }
        let sameOrigin = service.scheme == scheme && service.host == host && service.port == port
        let online = service.scheme == "https" && Self.isArcGISOnline(service.host) && Self.isArcGISOnline(host)
        if online, !sameOrigin {
            return ["/sharing/rest/generatetoken", "/sharing/generatetoken"].contains(service.path.lowercased())
        }
        guard sameOrigin, service.path.hasPrefix(path) else { return false }
        return Self.tokenServicePaths.contains(String(service.path.dropFirst(path.count)).lowercased())
    }

    /// Whether `url` is this portal's own generateToken (`…/sharing/rest/generateToken` or its
    /// older form, below this context; ArcGIS Online's for an organization in ArcGIS Online): a
    /// token it issued is the portal's (``ArcGISCredential/isIssuedByPortal``).
    public func isPortalTokenService(_ url: URL) -> Bool {
        guard isOwnTokenService(url), let service = try? ServerContext.parts(of: url) else { return false }
        let path = service.path.lowercased()
        return path.hasSuffix("/sharing/rest/generatetoken") || path.hasSuffix("/sharing/generatetoken")
    }

    /// Whether `hint`, the `tokenServicesUrl` a server names in its `rest/info` while naming this
    /// portal as its owner, is this portal's own generateToken. A server's hint never chooses
    /// where anything goes: one that is not the portal's own means the portal does not vouch for
    /// the server. No hint is the portal's own.
    func isOwnPortalTokenService(hint: String?) -> Bool {
        guard let hint else { return true }
        guard let url = URL(string: hint), !hint.contains("?"), !hint.contains("#"),
            let service = try? ServerContext.parts(of: url)
        else { return false }
        guard service.scheme == scheme, service.host == host, service.port == port, service.path.hasPrefix(path)
        else { return false }
        let below = String(service.path.dropFirst(path.count)).lowercased()
        return below == "/sharing/rest/generatetoken" || below == "/sharing/generatetoken"
    }
}
