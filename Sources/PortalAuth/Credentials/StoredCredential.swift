#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
    /// Whether it can be renewed, how, and until when it works if it is not: the credential's own
    /// answer, which `renew` and `status --check` ask (each family gives a cautious default; a
    /// credential that renews itself says so).
    var renewal: CredentialRenewal { get }
    /// What to do once it can no longer be renewed (its ``renewal`` says when): `nil` when signing
    /// in again as it was signed in is the answer, which is the default.
    var remedyWhenLapsed: PortalAuthError.Remedy? { get }
}

extension StoredCredential {
    /// Whether ``scope`` contains `url`.
    public func applies(to url: URL) -> Bool { scope.contains(url) }
    /// None: signing in again as it was signed in.
    public var remedyWhenLapsed: PortalAuthError.Remedy? { nil }
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
    /// A derived credential follows its portal; one that renews itself until a known end
    /// (``renewableUntil``) does so; any other is taken to end with its token. A credential that
    /// renews itself without end says so (``CredentialRenewal/renewsItself``).
    public var renewal: CredentialRenewal {
        if derivedFrom != nil { return .followsPortal }
        if let renewableUntil { return .renewsItselfUntil(renewableUntil) }
        return .cannotRenew(endsAt: tokenInfo.expirationDate)
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
    /// Not renewed, and it does not expire by itself (a client certificate says when it ends).
    public var renewal: CredentialRenewal { .cannotRenew(endsAt: nil) }
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
    /// Taken to end with its token; a credential that renews itself (with a refresh token) says so.
    public var renewal: CredentialRenewal { .cannotRenew(endsAt: tokenInfo.expirationDate) }
}
