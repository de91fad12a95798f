import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A network credential a plugin just gave (or a program registers), stored once, when a server
/// first accepts it.
final class ProvisionalNetworkCredential: Sendable {
    let credential: any NetworkCredential
    /// What it contributes to a request.
    let options: TransportOptions
    /// What it answers.
    let categories: Set<NetworkCredentialCategory>
    private let stored: Mutex<Bool>

    init(_ credential: any NetworkCredential, alreadyStored: Bool = false) {
        self.credential = credential
        var options = TransportOptions()
        credential.apply(to: &options)
        self.options = options
        self.categories = NetworkCredentialCategory.of(options)
        self.stored = Mutex(alreadyStored)
    }

    func commit(to store: NetworkCredentialStore) async throws {
        let first = stored.withLock { stored -> Bool in
            defer { stored = true }
            return !stored
        }
        if first { try await store.add(any: credential) }
    }
}
