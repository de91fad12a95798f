#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthenticationManager {
    /// Renews the stored ArcGIS credential of `url`'s server context through the manager's one
    /// renewal path: once however many tasks and processes need it; a renewal another process
    /// stored meanwhile is used as it is; a credential signed out meanwhile is not brought back.
    /// The credential renews itself (a refresh token, a password kept in memory, an app's secret),
    /// else through the program's ``UnattendedRenewal``; a federated server token is obtained
    /// again from its portal.
    ///
    /// - Parameters:
    ///   - refused: a server refused the credential's token before it expired: renew it even so,
    ///     and never return it.
    ///   - lasting: renew it so that it goes on renewing itself as long as it can again
    ///     (``ArcGISCredential/renewedToLast(using:)``: an OAuth sign-in exchanges its refresh
    ///     token for a new one), unless another task or process already did, so that a sign-in
    ///     nobody uses for a while does not reach the end of its ``ArcGISCredential/renewableUntil``.
    /// - Returns: the renewed credential, the current one while it is good, or `nil` when there is
    ///   none or nothing could renew it.
    public func renewCredential(
        for url: URL, refused: Bool = false, lasting: Bool = false
    ) async throws -> (any ArcGISCredential)? {
        guard let stored = try await arcGISCredentialStore.credential(for: url) else { return nil }
        return try await renewCredential(stored, refused: refused, lasting: lasting)
    }

    /// Renews `credential`, the stored credential as the caller read it when it decided to renew,
    /// as ``renewCredential(for:refused:lasting:)`` does. What the store holds is compared with it
    /// under the renewal's lock: a renewal another task or process stored after the caller read
    /// it is used as it is, so a decision taken on one reading is carried out once (two `renew`
    /// runs at once exchange a refresh token once, not once each).
    public func renewCredential(
        _ credential: any ArcGISCredential, refused: Bool = false, lasting: Bool = false
    ) async throws -> (any ArcGISCredential)? {
        try await arcGIS.renew(credential, refused: refused, lasting: lasting)
    }

    /// Sets the program's way to renew credentials that cannot renew themselves (`nil`: none).
    public func setUnattendedRenewal(_ renewal: (any UnattendedRenewal)?) {
        arcGIS.renewals.unattended.withLock { $0 = renewal }
    }

    /// Whether the registered ``UnattendedRenewal`` (``setUnattendedRenewal(_:)``) says it can renew
    /// `credential` unattended now (``UnattendedRenewal/canRenew(_:)``); false without one.
    public func signsInUnattended(for credential: any ArcGISCredential) -> Bool {
        unattendedRenewal?.canRenew(credential) ?? false
    }

    /// The registered ``UnattendedRenewal``, if any.
    var unattendedRenewal: (any UnattendedRenewal)? { arcGIS.renewals.unattended.withLock { $0 } }

    /// ``signsInUnattended(for:)`` of the stored sign-in `summary` names, the active account's or an
    /// inactive one's, as stored now: what `renew` and an expiry check ask, so that a credential a
    /// plugin or program renews unattended is treated as the bundled ones are. False when it is gone,
    /// unreadable, of another kind now, or has no user.
    public func signsInUnattended(for summary: CredentialSummary) async throws -> Bool {
        guard let user = summary.username, let context = try? ServerContext(summary.server),
            let credential = try await arcGISCredentialStore.credential(for: context, username: user),
            type(of: credential).kind == summary.kind
        else { return false }
        return signsInUnattended(for: credential)
    }
}
