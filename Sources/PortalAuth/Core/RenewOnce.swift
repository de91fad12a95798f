import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One credential's renewal, as ``RenewOnce`` runs it: how to read the stored copy, renew, and
/// store the result. ArcGIS credentials and identity-aware IAP credentials both renew this way.
struct Renewal<Credential: Sendable>: Sendable {
    /// Concurrent renewals with the same key share one run.
    var flightKey: String
    /// The key of the lock shared with other processes.
    var lockKey: String
    /// The credential close to expiry (or refused).
    var credential: Credential
    /// The server refused the credential's token: renew it even though it has not expired
    /// (unless another task or process already replaced it), and do not fall back to it.
    var refused = false
    /// A credential's token.
    var tokenInfo: @Sendable (Credential) -> TokenInfo
    /// How long before expiry a credential is renewed.
    var renewalLeeway: @Sendable (Credential) -> TimeInterval
    /// The stored copy; `reload` reads the backend again (another process may have renewed it).
    var stored: @Sendable (_ reload: Bool) async throws -> Credential?
    /// Renews a credential without asking anyone; `nil` when it cannot.
    var renew: @Sendable (Credential) async throws -> Credential?
    /// Stores a renewed credential.
    var save: @Sendable (Credential) async throws -> Void
    /// Renew the stored copy when there is one (it may carry a refresh token another process
    /// rotated) rather than the credential in hand (which may carry what is never stored, such as
    /// a password kept in memory).
    var renewsStoredCopy = false
    /// Another way to a fresh credential when the credential cannot renew itself (a federated
    /// server token is obtained again from its portal).
    var fallback: (@Sendable () async throws -> Credential?)?
    /// What the log calls it, and about which server.
    var logMetadata: Logger.Metadata
}

/// Renew-once: a credential close to expiry is renewed once, however many tasks (single-flight)
/// and processes (a cross-process lock, for persistent stores) need it at the same time.
///
/// The rules, in order: a stored copy that another task or process renewed meanwhile is used as
/// it is; a credential signed out meanwhile (by another process) is not brought back; a passing
/// failure at the token service keeps the current token while it is valid; and a credential that
/// cannot be renewed is used until it expires.
final class RenewOnce<Credential: Sendable>: Sendable {
    /// Whether renewals take a lock shared with other processes (the store is persistent).
    let usesCrossProcessLocks: Bool
    private let logger: Logger
    private let flights = SingleFlight<String, Credential?>()

    init(usesCrossProcessLocks: Bool, logger: Logger) {
        self.usesCrossProcessLocks = usesCrossProcessLocks
        self.logger = logger
    }

    /// Runs `renewal` once across tasks and processes. Returns the renewed credential, the old
    /// one while it has not expired (and was not refused), or `nil`.
    func run(_ renewal: Renewal<Credential>) async throws -> Credential? {
        try await flights.run(renewal.flightKey) { [self] in
            guard usesCrossProcessLocks else { return try await renew(renewal) }
            return try await CrossProcessLock.withLock(
                renewal.lockKey, settled: { try await self.renewedElsewhere(renewal) }
            ) { try await renew(renewal) }
        }
    }

    /// While another process holds the lock: its renewal, once stored (a different token that is
    /// not about to expire); `nil` to go on waiting. A credential signed out meanwhile is left to
    /// the lock holder's rules.
    private func renewedElsewhere(_ renewal: Renewal<Credential>) async throws -> Credential?? {
        guard let stored = try await renewal.stored(true) else { return nil }
        let info = renewal.tokenInfo(stored)
        guard info.accessToken != renewal.tokenInfo(renewal.credential).accessToken, !info.expires(within: 30) else {
            return nil
        }
        return .some(stored)
    }

    private func renew(_ renewal: Renewal<Credential>) async throws -> Credential? {
        let credential = renewal.credential
        let current = renewal.tokenInfo(credential)
        let stored = try await renewal.stored(usesCrossProcessLocks)
        if let stored {
            let info = renewal.tokenInfo(stored)
            // Another task or process renewed it while we waited for the lock: a different,
            // unexpired token is that renewal (even when its lifetime is shorter than the leeway,
            // renewing again would only repeat it).
            if info.accessToken != current.accessToken, !info.expires(within: 30) { return stored }
            if !renewal.refused, !info.expires(within: renewal.renewalLeeway(stored)) { return stored }
        }
        // Signed out meanwhile (another process ran logout): do not bring it back.
        if usesCrossProcessLocks, stored == nil { return nil }
        logger.debug("renewing credential", metadata: renewal.logMetadata)
        let renewed: Credential?
        do {
            renewed = try await renewal.renew(renewal.renewsStoredCopy ? stored ?? credential : credential)
        } catch let error as PortalAuthError
            where error.code != .authenticationFailed && !renewal.refused && !current.isExpired()
        {
            // A passing failure at the token service: the current token is still good.
            var metadata = renewal.logMetadata
            metadata["error"] = "\(error.code)"
            logger.warning("renewal failed; using the current token until it expires", metadata: metadata)
            return credential
        }
        if let renewed {
            try await renewal.save(renewed)
            return renewed
        }
        if let fallback = renewal.fallback, let fresh = try await fallback() { return fresh }
        return renewal.refused || current.isExpired() ? nil : credential
    }
}
