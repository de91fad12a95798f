import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A credential for an identity-aware proxy in front of a set of hosts (Microsoft Entra
/// Application Proxy): every request to a host it ``canBeUsed(for:)`` carries
/// `Authorization: Bearer <token>`, whatever ArcGIS credential the request also carries.
///
/// Unlike an ``ArcGISCredential`` it is not bound to one server context but to host patterns,
/// so the store keeps it under a ``iapIdentifier`` and asks each credential whether it applies.
public protocol IAPAuthorizationCredential: StoredCredential {
    /// Identifies the sign-in (the identity provider's token endpoint and the client ID); stored
    /// as the item's `server` attribute. A new sign-in with the same identifier replaces the old.
    var iapIdentifier: String { get }
    /// Whether requests to `url` carry this credential (the URL's host is behind the proxy).
    func canBeUsed(for url: URL) -> Bool
    /// The bearer token presented to the proxy, with its expiry.
    var tokenInfo: TokenInfo { get }
    /// How long before expiry the token is renewed (5 minutes by default).
    var renewalLeeway: TimeInterval { get }
    /// Returns a renewed credential without asking the user (refresh token), or nil when that is impossible.
    func renewed(using services: AuthenticationServices) async throws -> (any IAPAuthorizationCredential)?
    /// The identity provider's sign-out page, opened in the browser when the credential is invalidated.
    var logoutURL: URL? { get }
    /// What signing in again takes, for the remedy of errors that need it.
    var howToSignIn: PortalAuthError.SignIn { get }
}

extension IAPAuthorizationCredential {
    /// Five minutes.
    public var renewalLeeway: TimeInterval { 300 }
    /// No sign-out page by default.
    public var logoutURL: URL? { nil }
    /// A sign-in of this kind, with no configuration file known.
    public var howToSignIn: PortalAuthError.SignIn { PortalAuthError.SignIn(kind: Self.kind) }
    /// Cannot be renewed by default.
    public func renewed(using services: AuthenticationServices) async throws -> (any IAPAuthorizationCredential)? {
        nil
    }
}
