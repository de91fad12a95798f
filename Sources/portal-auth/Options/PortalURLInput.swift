import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A portal URL as a person types or pastes it, read one way wherever one is given (`--portal`,
/// `--url`, `ARCGIS_HOST`, `switch`, `logout`, `whoami`, configuration files): the strict reading
/// of every URL, then the host in lower case, no trailing slash, and a page or API of the portal
/// copied from the browser (`.../portal/home/...`, `.../portal/apps/...`,
/// `.../portal/sharing/rest/...`) reduced to the portal, with a one-line note on stderr.
enum PortalURLInput {
    /// The path segments after which a URL is a page or an API of the portal, not the portal.
    static let portalPageSegments: Set<String> = ["home", "apps", "sharing", "portaladmin"]

    /// `text` read as a portal URL; `source` names where it came from in the note and errors
    /// (`ARCGIS_HOST`, a file's key), nil for a command-line value; `doing` what the command does
    /// with the portal, for the note ("using", "signing in to").
    static func read(_ text: String, source: String? = nil, doing: String = "using") throws -> URL {
        let url: URL
        do {
            url = try parseURL(text)
        } catch let error as PortalAuthError {
            guard let source else { throw error }
            throw PortalAuthError(error.code, "\(source): \(error.message)", remedy: error.remedy)
        }
        let tidy = tidied(url)
        guard let root = portalRoot(of: tidy) else { return tidy }
        printInfo(
            "portal-auth: note: \(source.map { "\($0) (\(ServerContext.describeWithScheme(url)))" } ?? ServerContext.describeWithScheme(url)) "
                + "is a page of the portal; \(doing) the portal \(root.absoluteString)")
        return root
    }

    /// `url` with its host in lower case and without trailing slashes on its path.
    static func tidied(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.host = components.host?.lowercased()
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path
        return components.url ?? url
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
}
