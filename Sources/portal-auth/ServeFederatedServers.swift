import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The ArcGIS Servers each signed-in portal lists as federated (`portals/self/servers`, read from
/// the portal with its own credential, kept for five minutes): what ``ServeScope`` checks before
/// the manager may contact a server it has no credential for yet.
final class ServeFederatedServers: Sendable {
    static let shared = ServeFederatedServers()

    /// How long a portal's list is kept.
    static let lifetime: Duration = .seconds(300)

    private let lists = Locked<[String: (roots: Set<String>, read: ContinuousClock.Instant)]>([:])

    /// Whether `portal` lists `root` among its servers (`url` or `adminUrl`); false when the list
    /// cannot be read.
    func lists(_ root: ServerContext, portal: ServerContext, manager: AuthenticationManager) async -> Bool {
        let now = ContinuousClock.now
        if let kept = lists.withLock({ $0[portal.url] }), now - kept.read < Self.lifetime {
            return kept.roots.contains(root.url)
        }
        guard let url = URL(string: portal.portalRESTURL + "/portals/self/servers"),
            let answer = try? await manager.send(ArcGISRequest(url: url)), let json = answer.json
        else { return false }
        var roots: Set<String> = []
        for server in json["servers"]?.arrayValue?.prefix(1000) ?? [] {
            for key in ["url", "adminUrl"] {
                // As the core reads the list (ArcGISResolver.serverRoots).
                if let text = server[key]?.stringValue, let context = try? ServerContext(text) {
                    roots.insert(context.url)
                }
            }
        }
        lists.withLock { $0[portal.url] = (roots, now) }
        return roots.contains(root.url)
    }
}
