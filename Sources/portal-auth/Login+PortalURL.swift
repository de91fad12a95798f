import ArgumentParser
import PortalAuth
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Login {
    /// The path segments after which a portal URL copied from the browser is a page or an API
    /// of the portal, not the portal: `.../portal/home/item.html?id=...`, `.../portal/apps/...`,
    /// `.../portal/sharing/rest`, `.../portal/portaladmin`.
    static let portalPageSegments: Set<String> = ["home", "apps", "sharing", "portaladmin"]

    /// `--portal` as the portal's root URL: a URL copied from the browser is reduced to the
    /// portal, with a note on stderr.
    static func portalRoot(_ text: String) throws -> URL {
        let url = try parseURL(text)
        guard let root = portalRoot(of: url) else { return url }
        printInfo(
            "portal-auth: note: \(ServerContext.describeWithScheme(url)) is a page of the portal; signing in to the portal \(root.absoluteString)"
        )
        return root
    }

    /// The portal root of a URL that goes on into one of its pages or APIs, or nil when it does not.
    static func portalRoot(of url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard let page = segments.firstIndex(where: { portalPageSegments.contains($0.lowercased()) }) else {
            return nil
        }
        components.percentEncodedPath = segments[..<page].joined(separator: "/")
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.url
    }

    /// The `--redirect-url` (or the out-of-band URI) as a URL; the default loopback when none is given.
    static func redirect(_ text: String?) throws -> URL {
        guard let text else { return OAuthUserConfiguration.defaultRedirectURL }
        _ = try AuthorizationRedirect(text)  // its error says what a redirect URL may be
        guard let url = URL(string: text) else { throw ValidationError("--redirect-url \(text) is not a URL") }
        return url
    }
}
