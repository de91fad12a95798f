#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A credential for ArcGIS token-based security: ArcGIS tokens, pregenerated tokens, OAuth.
///
/// It belongs to one ``ServerContext`` and is only attached to requests inside it.
public protocol ArcGISCredential: StoredCredential {
    /// The server context the credential belongs to.
    var serverContext: ServerContext { get }
    /// The current token (it may be close to expiry; the manager renews it through ``renewed(using:)``).
    var tokenInfo: TokenInfo { get }
    /// The referer the token is bound to, sent as the `Referer` header with it.
    var referer: String? { get }
    /// How long before expiry the manager renews the token (5 minutes by default).
    var renewalLeeway: TimeInterval { get }
    /// The portal a derived credential (a federated server token) was obtained from.
    var derivedFrom: ServerContext? { get }
    /// Returns a renewed credential without asking the user, or `nil` when that is impossible
    /// (for example a token credential whose password is not in memory).
    func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)?
    /// When the credential stops renewing itself unless renewed to last (an OAuth refresh token's
    /// end), or `nil` when what it renews itself with does not end.
    var renewableUntil: Date? { get }
    /// Returns a credential renewed so that it goes on renewing itself as long as it can again
    /// (an OAuth sign-in exchanges its refresh token for a new one), or `nil` when that is
    /// impossible. By default ``renewed(using:)``. The manager asks for it in
    /// ``AuthenticationManager/renewCredential(for:refused:lasting:)``, for a program that keeps
    /// sign-ins alive ahead of time.
    func renewedToLast(using services: AuthenticationServices) async throws -> (any ArcGISCredential)?
    /// What signing in again for this credential takes, for the remedy of errors that need it
    /// (by default a username/password sign-in to ``serverContext``, or to the portal of
    /// ``derivedFrom``).
    var howToSignIn: PortalAuthError.SignIn { get }
    /// Whether a portal issued this credential at its own token service (an OAuth sign-in, the
    /// portal's `sharing/rest/generateToken`), so that what the portal says with it may be taken
    /// as the portal's word: its list of federated servers
    /// (``AuthenticationManager/isWithinKnownScope(_:)``). `false` by default: a token made
    /// elsewhere (a pregenerated token, a server's own token, a federated server token) speaks for
    /// no portal, and what its server lists is never a reason to contact another host.
    var isIssuedByPortal: Bool { get }
}

extension ArcGISCredential {
    /// No referer by default.
    public var referer: String? { nil }
    /// Five minutes.
    public var renewalLeeway: TimeInterval { 300 }
    /// Not derived by default.
    public var derivedFrom: ServerContext? { nil }
    /// A username/password sign-in to ``serverContext`` (to ``derivedFrom`` for a derived credential).
    public var howToSignIn: PortalAuthError.SignIn {
        derivedFrom.map { .token($0, username: username) }
            ?? PortalAuthError.SignIn(kind: Self.kind, serverContext: serverContext, username: username)
    }
    /// `false`: see ``isIssuedByPortal``.
    public var isIssuedByPortal: Bool { false }
    /// Cannot be renewed by default.
    public func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? { nil }
    /// `nil`: what it renews itself with does not end.
    public var renewableUntil: Date? { nil }
    /// ``renewed(using:)``.
    public func renewedToLast(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? {
        try await renewed(using: services)
    }

    /// When the credential stops working for good unless someone signs in again
    /// (``CredentialRenewal/lapse(tokenExpires:signsInUnattended:)`` of its ``StoredCredential/renewal``),
    /// where `unattended` is the program's way to renew what cannot renew itself: asked
    /// (``UnattendedRenewal/canRenew(_:)``) only for a credential that needs an unattended sign-in.
    /// `nil` when it renews itself without end, follows its portal or never expires.
    ///
    /// What ``CredentialDecision/renewableUntil`` answers, for a program that read the credential
    /// from its store itself (`portal-auth token`'s fast path) and must answer the same.
    public func lapse(renewingUnattendedWith unattended: (any UnattendedRenewal)?) -> Date? {
        let renewal = self.renewal
        let signsIn = renewal == .needsUnattendedSignIn && (unattended?.canRenew(self) ?? false)
        return renewal.lapse(tokenExpires: tokenInfo.expirationDate, signsInUnattended: signsIn)
    }
}
