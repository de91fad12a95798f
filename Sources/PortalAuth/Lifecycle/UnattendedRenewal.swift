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
}
