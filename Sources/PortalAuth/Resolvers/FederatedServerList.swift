import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The servers a portal lists as federated with it (`portals/self/servers`), read with one of its
/// tokens: the normalised `url` and `adminUrl` of each.
struct FederatedServerList: Sendable {
    /// The portal token the list was read with: a new portal credential reads it again.
    let token: String
    /// The listed servers' roots, normalised (``ServerContext/url``).
    let roots: Set<String>
}
