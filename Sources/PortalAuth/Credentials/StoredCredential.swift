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
}

/// A credential kept in a ``CredentialStore``: what every kind of credential (ArcGIS, network,
/// identity-aware proxy) has in common, so that one store, one cache and one renewal keep them all.
///
/// ``ArcGISCredential``, ``NetworkCredential`` and ``IAPAuthorizationCredential`` refine it with
/// the SDK's vocabulary and give every requirement here a default from their own, so a plugin
/// conforms to one of those and never to this protocol directly.
public protocol StoredCredential: StorableCredential {
    /// Where the credential applies; the store keeps it under the scope's ``CredentialScope/storeKey``.
    var scope: CredentialScope { get }
    /// Whether a request to `url` carries this credential (by default, whether the scope contains it).
    func applies(to url: URL) -> Bool
    /// How the credential goes with a request it applies to: a header (a token) or transport
    /// options (a password, a client certificate, a pinned key).
    func attach(to request: inout TransportRequest, options: inout TransportOptions)
    /// The token the credential presents and its expiry, for credentials that carry one (`nil`
    /// for network credentials, which never expire by themselves).
    var presentedToken: TokenInfo? { get }
    /// How long before the token's expiry it is renewed.
    var renewalLeeway: TimeInterval { get }
    /// A renewed credential, obtained without asking anyone, or `nil` when this credential cannot
    /// renew itself.
    func renewedCredential(using services: AuthenticationServices) async throws -> (any StoredCredential)?
}

extension StoredCredential {
    /// Whether ``scope`` contains `url`.
    public func applies(to url: URL) -> Bool { scope.contains(url) }
}

extension ArcGISCredential {
    /// The credential's ``serverContext``.
    public var scope: CredentialScope { .serverContext(serverContext) }
    /// The token as `X-Esri-Authorization: Bearer`, with the ``referer`` it is bound to.
    public func attach(to request: inout TransportRequest, options: inout TransportOptions) {
        request.setHeader("X-Esri-Authorization", "Bearer " + tokenInfo.accessToken)
        if let referer { request.setHeader("Referer", referer) }
    }
    /// ``tokenInfo``.
    public var presentedToken: TokenInfo? { tokenInfo }
    /// ``renewed(using:)``.
    public func renewedCredential(using services: AuthenticationServices) async throws -> (any StoredCredential)? {
        try await renewed(using: services)
    }
}

extension NetworkCredential {
    /// The credential's ``host``.
    public var scope: CredentialScope { .host(host) }
    /// What ``apply(to:)`` contributes to the transport options.
    public func attach(to request: inout TransportRequest, options: inout TransportOptions) { apply(to: &options) }
    /// None: a network credential carries no token.
    public var presentedToken: TokenInfo? { nil }
    /// Never renewed (it has no token to expire).
    public var renewalLeeway: TimeInterval { 0 }
    /// None: a network credential does not renew itself.
    public func renewedCredential(using services: AuthenticationServices) async throws -> (any StoredCredential)? {
        nil
    }
}

extension IAPAuthorizationCredential {
    /// The sign-in's ``iapIdentifier``.
    public var scope: CredentialScope { .hosts(identifier: iapIdentifier) }
    /// The proxy's token as `Authorization: Bearer`.
    public func attach(to request: inout TransportRequest, options: inout TransportOptions) {
        request.setHeader("Authorization", "Bearer " + tokenInfo.accessToken)
    }
    /// Whether `url`'s host is behind the proxy (``canBeUsed(for:)``).
    public func applies(to url: URL) -> Bool { canBeUsed(for: url) }
    /// ``tokenInfo``.
    public var presentedToken: TokenInfo? { tokenInfo }
    /// ``renewed(using:)``.
    public func renewedCredential(using services: AuthenticationServices) async throws -> (any StoredCredential)? {
        try await renewed(using: services)
    }
}
