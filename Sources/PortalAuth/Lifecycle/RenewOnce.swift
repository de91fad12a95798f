import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CredentialStore: RenewalStore {
    func storedCopy(of credential: any StoredCredential, reload: Bool) async throws -> (any StoredCredential)? {
        try await credentials(in: credential.scope, reload: reload).lazy.compactMap { $0 as? any StoredCredential }
            .first {
                // (Another user's credential, made active by a switch of accounts, is not this one's renewal.)
                $0.username == credential.username
                    && (type(of: $0).kind == type(of: credential).kind || self.family.onePerScope)
            }
    }

    func save(_ credential: any StoredCredential) async throws {
        guard let typed = credential as? Credential else {
            throw PortalAuthError(.internalError, "a renewal returned a credential of another family", remedy: .none)
        }
        try await commit(typed, origin: .renewal)
    }
}

/// Renew-once: a credential close to expiry is renewed once, however many tasks (single-flight)
/// and processes (a cross-process lock, for persistent stores) need it at the same time.
///
/// The rules, in order: a stored copy that another task or process renewed meanwhile is used as
/// it is; a credential signed out meanwhile (by another process) is not brought back; a passing
/// failure at the token service keeps the current token while it is valid; and a credential that
/// cannot be renewed is used until it expires.
final class RenewOnce: Sendable {
    /// Whether renewals take a lock shared with other processes (the store is persistent).
    let usesCrossProcessLocks: Bool
    private let logger: Logger
    private let flights = SingleFlight<String, (any StoredCredential)?>()

    /// What credentials renew themselves with.
    private let services: AuthenticationServices
    /// The program's way to renew an ArcGIS credential that cannot renew itself, if any.
    let unattended = Locked<(any UnattendedRenewal)?>(nil)

    init(usesCrossProcessLocks: Bool, services: AuthenticationServices) {
        self.usesCrossProcessLocks = usesCrossProcessLocks
        self.logger = services.logger
        self.services = services
    }

    /// Runs `renewal` once across tasks and processes. Returns the renewed credential, the old
    /// one while it has not expired (and was not refused), or `nil`.
    func run(_ renewal: Renewal) async throws -> (any StoredCredential)? {
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
    private func renewedElsewhere(_ renewal: Renewal) async throws -> (any StoredCredential)?? {
        guard let stored = try await renewal.store.storedCopy(of: renewal.credential, reload: true) else { return nil }
        let info = Renewal.token(stored)
        guard info.accessToken != Renewal.token(renewal.credential).accessToken, !info.expires(within: 30) else {
            return nil
        }
        // A renewal to last is settled only by one to last: an ordinary refresh meanwhile leaves the
        // end where it was, and the holder's renewal is waited for, then decided on its own.
        if renewal.lasting, Renewal.renewableUntil(renewal.credential) != nil,
            RenewalDecision.sameEnd(Renewal.renewableUntil(stored), Renewal.renewableUntil(renewal.credential))
        {
            return nil
        }
        return .some(stored)
    }

    private func renew(_ renewal: Renewal) async throws -> (any StoredCredential)? {
        let credential = renewal.credential
        let current = Renewal.token(credential)
        let stored = try await renewal.store.storedCopy(of: credential, reload: usesCrossProcessLocks)
        // A renewal to last of a credential whose renewal does not end (an app's secret) is any renewal.
        let step =
            renewal.lasting && Renewal.renewableUntil(credential) != nil
            ? RenewalDecision.firstStepToLast(
                current: Renewal.renewableUntil(credential), stored: stored.map(Renewal.renewableUntil),
                crossProcess: usesCrossProcessLocks)
            : RenewalDecision.firstStep(
                current: current, stored: stored.map(Renewal.token), storedLeeway: stored?.renewalLeeway ?? 0,
                refused: renewal.refused, crossProcess: usesCrossProcessLocks)
        switch step {
        case .useStored: return stored
        case .signedOut: return nil
        case .renew: break
        }
        logger.debug("renewing credential", metadata: renewal.logMetadata)
        let renewed: (any StoredCredential)?
        do {
            renewed = try await renewedCredential(
                of: renewal.renewsStoredCopy || renewal.lasting ? stored ?? credential : credential,
                lasting: renewal.lasting)
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
            try await renewal.store.save(renewed)
            return renewed
        }
        if let fallback = renewal.fallback, let fresh = try await fallback() { return fresh }
        switch RenewalDecision.whenNothingRenews(refused: renewal.refused, expired: current.isExpired()) {
        case .current: return credential
        case .none: return nil
        }
    }

    /// The credential's own renewal (to last, when `lasting`), else the program's unattended one
    /// (an ArcGIS credential of its own server context only: a federated server token is obtained
    /// again from its portal).
    ///
    /// When the credential's own renewal is refused (what it renews itself with, a password in
    /// memory or an app's secret, changed since), the unattended one is asked before the refusal is
    /// reported: it may sign in with the secret as it is now (a secret file that rotated).
    private func renewedCredential(
        of credential: any StoredCredential, lasting: Bool
    ) async throws -> (any StoredCredential)? {
        do {
            if lasting, let arcGIS = credential as? any ArcGISCredential {
                if let renewed = try await arcGIS.renewedToLast(using: services) { return renewed }
            } else if let renewed = try await credential.renewedCredential(using: services) {
                return renewed
            }
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            guard let renewed = try await unattendedRenewal(of: credential) else { throw error }
            return renewed
        }
        return try await unattendedRenewal(of: credential)
    }

    /// The program's unattended renewal of `credential`, an ArcGIS credential of its own server
    /// context; nil for any other, or when there is none.
    private func unattendedRenewal(of credential: any StoredCredential) async throws -> (any StoredCredential)? {
        guard let arcGIS = credential as? any ArcGISCredential, arcGIS.derivedFrom == nil,
            let unattended = unattended.withLock({ $0 })
        else { return nil }
        return try await unattended.renewed(arcGIS, services: services)
    }
}
