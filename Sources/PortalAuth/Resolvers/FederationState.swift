import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the ArcGIS resolver learned from portals about their servers, and the decision it takes
/// from that alone (``route(to:portalToken:isOnlineHosted:)``, no I/O). Keys are `portal server`
/// pairs of normalised URLs.
final class FederationState: Sendable {
    /// Where a portal's token may go for a server that names the portal as its owner.
    enum Route: Equatable {
        /// Nowhere: the portal neither exchanged this very token nor listed the server.
        case refuse
        /// The portal's own token is used at the server (ArcGIS Online hosted services, or a server
        /// the portal lists as federated but whose token it does not exchange).
        case usePortalToken
        /// Ask the portal to exchange its token for a server token.
        case exchange
    }

    /// `portal server` pairs: servers the portal lists but whose token it does not exchange.
    private let listed = Locked<Set<String>>([])
    /// `portal server` pairs the portal neither exchanged nor listed, with the portal token refused.
    private let unlisted = Locked<[String: String]>([:])
    /// Each portal's list of federated servers, with the token it was read with.
    private let lists = Locked<[String: FederatedServerList]>([:])

    /// The route for the `portal server` pair `key` with `portalToken`, from what is known.
    func route(to key: String, portalToken: String, isOnlineHosted: Bool) -> Route {
        Self.route(
            refusedToken: unlisted.withLock { $0[key] }, listed: listed.withLock { $0.contains(key) },
            portalToken: portalToken, isOnlineHosted: isOnlineHosted)
    }

    /// The decision itself: a token refused before for this pair is refused again without asking
    /// the portal; ArcGIS Online hosted services and listed servers take the portal token; any
    /// other server is asked of the portal.
    static func route(refusedToken: String?, listed: Bool, portalToken: String, isOnlineHosted: Bool) -> Route {
        if refusedToken == portalToken { return .refuse }
        return isOnlineHosted || listed ? .usePortalToken : .exchange
    }

    /// The portal lists the server of `key` but does not exchange its token.
    func recordListed(_ key: String) { listed.withLock { _ = $0.insert(key) } }

    /// The portal neither exchanged `refusedToken` for the server of `key` nor lists it.
    func recordUnlisted(_ key: String, refusedToken: String) { unlisted.withLock { $0[key] = refusedToken } }

    /// The portal's list, when it was read with `token` (a new portal token reads it again).
    func serverList(of portal: String, readWith token: String) -> FederatedServerList? {
        lists.withLock { $0[portal] }.flatMap { $0.token == token ? $0 : nil }
    }

    /// Keeps a portal's list.
    func keep(_ list: FederatedServerList, of portal: String) { lists.withLock { $0[portal] = list } }
}
