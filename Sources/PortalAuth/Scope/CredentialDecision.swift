#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What the core decides for one URL, for a program that hands a credential on (a command that
/// prints a token, a local server that answers for one, a child process's environment): the
/// ArcGIS credential and exactly where it may go, the identity-aware proxy's credential for the
/// URL's host, until when the credential can be renewed, and where it came from.
/// ``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)`` makes it (and
/// ``CredentialSourceChain/decision(for:askedBy:includingProxy:interactive:)`` with the
/// source named); a surface obeys it and never decides on its own.
public struct CredentialDecision: Sendable {
    /// The URL the decision was made for, as it was given.
    public let url: URL
    /// The ArcGIS credential (the user's, a federated server's token from its portal, or an API
    /// key) with the URL prefixes it may go to; nil when only the proxy's credential applies.
    public let scoped: ScopedCredential?
    /// The identity-aware proxy's credential for the URL's host, when it was asked for and one
    /// is stored.
    public let proxy: (any IAPAuthorizationCredential)?
    /// The ``CredentialSource`` the decision came from, when a source (or a ``CredentialSourceChain``)
    /// made it; nil when a manager was asked directly (its own stores and keys). ``TokenJSON`` prints
    /// its ``CredentialSource/name`` as `source`.
    public internal(set) var source: (any CredentialSource)?
    /// The manager that made the decision: only its request loop sends on it (`send(_:as:)`), and its
    /// ``UnattendedRenewal`` is asked only when ``signsInUnattended`` or ``renewableUntil`` is read
    /// (a decision is made for every request a proxy forwards; whether a password is kept is asked
    /// only by what shows it: a token's json, the token endpoint).
    let decidedBy: AuthenticationManager?
    /// Whether the proxy's credential was asked for (``proxy`` is then the whole answer for it).
    let includesProxy: Bool

    /// The decision: at least one of the two is present (only the manager decides).
    package init(
        url: URL, scoped: ScopedCredential?, proxy: (any IAPAuthorizationCredential)?,
        decidedBy: AuthenticationManager? = nil, includesProxy: Bool = false
    ) {
        precondition(scoped != nil || proxy != nil, "a decision gives a credential")
        self.url = url
        self.decidedBy = decidedBy
        self.includesProxy = includesProxy
        self.scoped = scoped
        self.proxy = proxy
    }

    /// Whether the credential needs an unattended sign-in to renew
    /// (``CredentialRenewal/needsUnattendedSignIn``) and the deciding manager's ``UnattendedRenewal``
    /// says it has one now (``UnattendedRenewal/canRenew(_:)``: a password kept for its user).
    /// Read when asked, not when the decision is made.
    public var signsInUnattended: Bool {
        guard let credential, credential.renewal == .needsUnattendedSignIn, let decidedBy else { return false }
        return decidedBy.signsInUnattended(for: credential)
    }

    /// The ArcGIS credential (``scoped``'s).
    public var credential: (any ArcGISCredential)? { scoped?.credential }

    /// Whether and how the ArcGIS credential renews, as it answers itself
    /// (``StoredCredential/renewal``); nil when only the proxy's credential applies.
    public var renewal: CredentialRenewal? { scoped?.credential.renewal }

    /// When the ArcGIS credential stops working for good unless someone signs in again
    /// (``CredentialRenewal/lapse(tokenExpires:signsInUnattended:)`` with ``signsInUnattended``): the
    /// end of its refresh token, or its token's expiry for one that cannot renew. Nil when it renews
    /// without end, follows its portal (a federated server's token: ask for the portal's URL),
    /// never expires, or only the proxy's credential applies.
    public var renewableUntil: Date? {
        credential?.lapse(renewingUnattendedWith: decidedBy?.unattendedRenewal)
    }
}
