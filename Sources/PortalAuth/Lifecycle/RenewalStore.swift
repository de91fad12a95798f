import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where ``RenewOnce`` reads a credential's stored copy and saves its renewal: a ``CredentialStore``.
protocol RenewalStore: Sendable {
    /// The stored credential of `credential`'s scope and kind; `reload` reads the backend again.
    func storedCopy(of credential: any StoredCredential, reload: Bool) async throws -> (any StoredCredential)?
    /// Stores a renewed credential.
    func save(_ credential: any StoredCredential) async throws
}
