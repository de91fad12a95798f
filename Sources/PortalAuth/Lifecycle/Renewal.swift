import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One credential's renewal, as ``RenewOnce`` runs it: any renewable credential (an ArcGIS
/// token, an identity-aware proxy's token) renews this way, read from and saved to its store.
struct Renewal: Sendable {
    /// The credential close to expiry (or refused).
    var credential: any StoredCredential
    /// Where it is kept: its stored copy is read there and the renewed credential saved there.
    var store: any RenewalStore
    /// The server refused the credential's token: renew it even though it has not expired
    /// (unless another task or process already replaced it), and do not fall back to it.
    var refused = false
    /// Renew the stored copy when there is one (it may carry a refresh token another process
    /// rotated) rather than the credential in hand (which may carry what is never stored, such as
    /// a password kept in memory).
    var renewsStoredCopy = false
    /// Renew it so that it goes on renewing itself as long as it can again
    /// (``ArcGISCredential/renewedToLast(using:)``: an OAuth refresh token exchanged), unless
    /// another task or process already did; the stored copy is renewed.
    var lasting = false
    /// Another way to a fresh credential when the credential cannot renew itself (a federated
    /// server token is obtained again from its portal).
    var fallback: (@Sendable () async throws -> (any StoredCredential)?)?

    /// Concurrent renewals with the same key share one run.
    var flightKey: String { credential.scope.storeKey + (refused ? " refused" : "") + (lasting ? " lasting" : "") }
    /// The key of the lock shared with other processes.
    var lockKey: String { credential.scope.renewalLockKey }
    /// The token of a credential (a renewable credential carries one).
    static func token(_ credential: any StoredCredential) -> TokenInfo {
        credential.presentedToken ?? TokenInfo(accessToken: "", expirationDate: .distantPast, isSSLRequired: true)
    }
    /// When a credential stops renewing itself (``ArcGISCredential/renewableUntil``).
    static func renewableUntil(_ credential: any StoredCredential) -> Date? {
        (credential as? any ArcGISCredential)?.renewableUntil
    }
    /// What the log calls it.
    var logMetadata: Logger.Metadata { ["server": "\(credential.scope)", "kind": "\(type(of: credential).kind)"] }
}
