import ArgumentParser
import PortalAuth
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Login {
    /// `--portal` (or `--url`) as the portal's root URL, read as every typed portal URL is
    /// (``PortalURLInput``): a URL copied from the browser is reduced to the portal, with a note.
    static func portalRoot(_ text: String) throws -> URL {
        try PortalURLInput.read(text, doing: "signing in to")
    }

    /// The `--redirect-url` (or the out-of-band URI) as a URL; the default loopback when none is given.
    static func redirect(_ text: String?) throws -> URL {
        guard let text else { return OAuthUserConfiguration.defaultRedirectURL }
        _ = try AuthorizationRedirect(text)  // its error says what a redirect URL may be
        guard let url = URL(string: text) else { throw ValidationError("--redirect-url \(text) is not a URL") }
        return url
    }

    /// A token sign-in at `target` whose token service was not found (HTTP or ArcGIS 404): when
    /// `target` answers `rest/info` as an ArcGIS Server, a server URL given where a portal's was
    /// expected. A server that issues its own tokens is signed in to as a server (the URL of its
    /// root: the same server context, its own token service); one that names an owning portal
    /// throws, naming that portal and the sign-in there that covers the server. Nil when `target`
    /// is not an ArcGIS Server, or is one already read as a server: `error` stands.
    static func serverSignInURL(
        after error: PortalAuthError, at target: URL, username: String, services: AuthenticationServices
    ) async throws -> URL? {
        switch error.cause {
        case .httpStatus(404)?, .arcGIS(404, _, _, _)?: break
        default: return nil
        }
        let root = ServerContext.arcGISServerRoot(of: target).flatMap { URL(string: $0.url) } ?? target
        guard let info = try? await services.getJSON(root.appending(path: "rest/info")),
            info["currentVersion"]?.doubleValue != nil
        else { return nil }
        let place = ServerContext.describeWithScheme(root)
        if let owner = info["owningSystemUrl"]?.stringValue {
            guard let portal = try? ServerContext(owner) else {
                throw PortalAuthError(
                    .invalidURL,
                    "\(place) is an ArcGIS Server, not a portal, and the owning portal its rest/info names is not a "
                        + "URL that can be used",
                    remedy: .checkURL)
            }
            throw PortalAuthError(
                .invalidURL,
                "\(place) is an ArcGIS Server, not a portal: its rest/info names \(portal.url) as the portal that "
                    + "issues its tokens, and a sign-in to that portal covers the server",
                remedy: .signIn(.token(portal, username: username)))
        }
        guard ServerContext.arcGISServerRoot(of: target) == nil else { return nil }
        printInfo(
            "portal-auth: note: \(place) is an ArcGIS Server with its own token service; signing in to the server")
        return root.appending(path: "rest")
    }
}
