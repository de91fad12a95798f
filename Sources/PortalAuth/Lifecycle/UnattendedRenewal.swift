/// Renews, without asking anyone, an ArcGIS credential that cannot renew itself (a token whose
/// password is not kept in memory): a program's own way to a fresh one, such as a password it
/// keeps in its credential store.
///
/// The manager asks it in its one renewal path (once across tasks and, under a lock, across
/// processes), after the credential's own renewal gave nothing: before the credential expires,
/// and when a server refused its token before then. What it returns is committed as a renewal
/// (``CredentialStore/commit(_:origin:)`` with ``CredentialOrigin/renewal``). Register it with
/// ``AuthenticationManager/setUnattendedRenewal(_:)``.
public protocol UnattendedRenewal: Sendable {
    /// A fresh credential for `credential`'s principal and server context, or `nil` when there is
    /// no unattended way to one. Never prompts.
    func renewed(
        _ credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)?

    /// Whether ``renewed(_:services:)`` has a way to a fresh `credential` now, found without
    /// signing in or reading a secret (a password kept for its user). Asked to tell until when a
    /// credential can be renewed (``CredentialDecision/renewableUntil``); it renews nothing.
    func canRenew(_ credential: any ArcGISCredential) -> Bool
}

extension UnattendedRenewal {
    /// Not known: taken as no, so that a credential is never said to last longer than it may.
    public func canRenew(_ credential: any ArcGISCredential) -> Bool { false }
}
