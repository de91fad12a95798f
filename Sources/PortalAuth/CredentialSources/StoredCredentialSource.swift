#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The stored credentials, through their manager: the active accounts' sign-ins, the stored API
/// keys, the network and proxy credentials. It answers for every URL (its manager then decides
/// what, if anything, goes there), so it is a chain's last source.
///
/// With `followingChanges`, a long-running program sees the stores as they are now (another
/// process may have signed in, out or switched): before each answer the manager's caches are
/// dropped and the stored API keys given to it (``AuthenticationManager/apiKeys``: each request
/// takes the key for its own URL) when a backend's change stamp differs from the one taken before
/// the last reading, or is unknown (``CredentialStorageBackend/changeStamp``), and at least every
/// 2 seconds (a change that leaves no stamp counts within that). A request after no change costs a
/// few `stat`s, not the keyring's D-Bus round trips.
public final class StoredCredentialSource: CredentialSource {
    /// What the source is, for a report.
    public var description: String { "the stored credentials" }
    /// ``name``: "stored" (whichever store holds them).
    public static let sourceName = "stored"
    /// "stored" (``sourceName``).
    public var name: String { Self.sourceName }
    /// The stored credentials' manager.
    public let manager: AuthenticationManager
    /// Whether the stores are read again after a change (``init(manager:followingChanges:)``).
    public let followsChanges: Bool
    /// The stored API keys as last read, with the stores' change stamps taken before.
    private let storedKeys = ChangeStampedValue<[APIKeyCredential]>()
    /// The backends of the manager's stores, each once (a manager's stores are set when it is made).
    private let backends: [any CredentialStorageBackend]

    /// The stored credentials of `manager`; `followingChanges` for a program that outlives a change
    /// to the stores. Following changes, the source owns the manager's API keys: each answer sets
    /// ``AuthenticationManager/apiKeys`` to the stored ones and drops an ``AuthenticationManager/apiKey``
    /// that is no longer stored (a key set in code is not kept).
    public init(manager: AuthenticationManager, followingChanges: Bool) {
        self.manager = manager
        self.followsChanges = followingChanges
        backends = Self.distinctBackends(of: manager)
    }

    /// Every URL (after seeing the stores as they are now, when following changes).
    public func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool {
        if followsChanges { try await reread() }
        return true
    }

    /// Makes the manager see its stores as they are now and gives it the stored API keys, reading
    /// the stores only after a change (the type's description).
    public func reread() async throws {
        let readAt = ContinuousClock.now
        let stamps = backends.map(\.changeStamp)
        let keys: [APIKeyCredential]
        if let known = storedKeys.value(at: stamps) {
            keys = known
        } else {
            manager.arcGISCredentialStore.invalidateCache()
            manager.iapCredentialStore.invalidateCache()
            manager.networkCredentialStore.invalidateCache()
            keys = try await manager.storedAPIKeys()
            storedKeys.keep(keys, readAfter: stamps, readAt: readAt)
        }
        // The list is set only when it changed, never per request, so requests for two portals
        // never see each other's key.
        if manager.apiKeys != keys { manager.apiKeys = keys }
        // (A key adopted for one URL, as `token` does, while the store changed under it, is never kept.)
        if let adopted = manager.apiKey, !keys.contains(adopted) { manager.apiKey = nil }
    }

    /// The backends of `manager`'s stores, each once (the stores usually share one).
    static func distinctBackends(of manager: AuthenticationManager) -> [any CredentialStorageBackend] {
        var seen: [ObjectIdentifier] = []
        var backends: [any CredentialStorageBackend] = []
        for backend in [
            manager.arcGISCredentialStore.backend, manager.iapCredentialStore.backend,
            manager.networkCredentialStore.backend,
        ] {
            if type(of: backend) is AnyClass {
                let identity = ObjectIdentifier(backend as AnyObject)
                if seen.contains(identity) { continue }
                seen.append(identity)
            }
            backends.append(backend)
        }
        return backends
    }
}
