import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds, renews and attaches IAP credentials. Renewal is single-flight across tasks and,
/// for persistent stores, across processes (``RenewOnce``).
final class IAPAuthorization: Sendable {
    let store: IAPCredentialStore
    /// Services over the transport without IAP credentials (the identity provider is not behind the proxy).
    let services: AuthenticationServices
    private let renewals: RenewOnce
    /// Whether renewals take a lock shared with other processes (the store is persistent).
    var usesCrossProcessLocks: Bool { renewals.usesCrossProcessLocks }

    init(store: IAPCredentialStore, services: AuthenticationServices, usesCrossProcessLocks: Bool) {
        self.store = store
        self.services = services
        self.renewals = RenewOnce(usesCrossProcessLocks: usesCrossProcessLocks, services: services)
    }

    /// The credential for `url`, renewed when close to expiry; nil when none applies, or when it
    /// expired and cannot be renewed.
    func credentialForUse(_ url: URL) async throws -> (any IAPAuthorizationCredential)? {
        guard let credential = try await store.credential(for: url) else { return nil }
        guard credential.tokenInfo.expires(within: credential.renewalLeeway) else { return credential }
        return try await renew(credential)
    }

    /// Renews once across tasks and processes; returns the renewed credential, the old one while
    /// it has not expired, or nil once it has.
    ///
    /// - Parameter refused: the proxy refused this credential's token: renew it even though it
    ///   has not expired (unless another task or process already replaced it).
    func renew(
        _ credential: any IAPAuthorizationCredential, refused: Bool = false
    ) async throws -> (any IAPAuthorizationCredential)? {
        try await renewals.run(Renewal(credential: credential, store: store, refused: refused, renewsStoredCopy: true))
            as? any IAPAuthorizationCredential
    }
}
