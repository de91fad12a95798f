#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where a stored credential applies: the one value the ``CredentialStore`` keys items by (the
/// `server` attribute) and the manager chooses credentials by.
public enum CredentialScope: Sendable, Hashable, CustomStringConvertible {
    /// A server context and every URL inside it: ArcGIS credentials (tokens, OAuth, federated
    /// server tokens).
    case serverContext(ServerContext)
    /// One host and port (`scheme://host:port`): network credentials (HTTP passwords, client
    /// certificates, trusted servers).
    case host(ServerContext)
    /// A set of hosts, stored under `identifier`: an identity-aware proxy's sign-in covers the
    /// hosts behind the proxy. Which URLs it covers is the credential's to say
    /// (``StoredCredential/applies(to:)``), not the scope's.
    case hosts(identifier: String)
    /// An API key and the portal it names (stored under `api-key ` and the portal's URL, beside
    /// a user's credential for the portal). Which URLs it covers (the portal, the portal's helper
    /// services, hosts given) is the credential's to say (``APIKeyCredential/applies(to:)``).
    case apiKey(portal: ServerContext)

    /// The key the store keeps items of this scope under: the item's `server` attribute.
    public var storeKey: String {
        switch self {
        case .serverContext(let context), .host(let context): return context.url
        case .hosts(let identifier): return identifier
        case .apiKey(let portal): return "api-key " + portal.url
        }
    }

    /// Whether `url` is inside the scope as far as the scope alone tells: inside the server context,
    /// on the host and port. Always `false` for ``hosts(identifier:)`` and ``apiKey(portal:)``,
    /// whose credential decides.
    public func contains(_ url: URL) -> Bool {
        switch self {
        case .serverContext(let context): return context.contains(url)
        case .host(let host): return (try? ServerContext.host(of: url)) == host
        case .hosts, .apiKey: return false
        }
    }

    /// The store key, as items name it.
    public var description: String { storeKey }

    /// The key of the lock that renewals of this scope's credential share with other processes
    /// (the names earlier versions used, so that two versions running at once still take turns).
    var renewalLockKey: String {
        switch self {
        case .serverContext, .host, .apiKey: return "renew " + storeKey
        case .hosts: return "renew proxy " + storeKey
        }
    }

    /// ``renewalLockKey`` of the scope an item of the store `storeName` is kept under, from the
    /// item's `server` attribute (`storeKey`) alone.
    static func renewalLockKey(storeKey: String, storeName: String) -> String {
        storeName == IAPCredentialStore.storeName ? "renew proxy " + storeKey : "renew " + storeKey
    }
}
