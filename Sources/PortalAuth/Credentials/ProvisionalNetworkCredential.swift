#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A network credential a plugin just gave (or a program registers), stored once, when a server
/// first accepts it.
///
/// The user's own Kerberos ticket that a plugin picked up for a request (Negotiate with no
/// password) is never stored: it holds nothing of its own to keep, and the ticket's life is the
/// user's business (`kinit`, `kdestroy`). A program that registers such a credential on purpose
/// (``AuthenticationManager/signIn(with:verifying:)``) stores it.
final class ProvisionalNetworkCredential: Sendable {
    let credential: any NetworkCredential
    /// What it contributes to a request.
    let options: TransportOptions
    /// What it answers.
    let categories: Set<NetworkCredentialCategory>
    /// Whether a program registers it (``AuthenticationManager/signIn(with:verifying:)``): stored
    /// only once the whole request succeeded.
    let registering: Bool
    /// Whether it is the user's own Kerberos ticket, picked up for a request (never stored).
    let isUsersOwnTicket: Bool
    private let stored: Locked<Bool>

    /// - Parameters:
    ///   - alreadyStored: it came from the store.
    ///   - registering: a program registers it (it is stored even when it is the user's own
    ///     ticket, and only once its request succeeded).
    init(_ credential: any NetworkCredential, alreadyStored: Bool = false, registering: Bool = false) {
        self.credential = credential
        var options = TransportOptions()
        credential.apply(to: &options)
        self.options = options
        self.categories = NetworkCredentialCategory.of(options)
        self.registering = registering
        self.isUsersOwnTicket = Self.isUsersOwnKerberosTicket(options)
        self.stored = Locked(alreadyStored)
    }

    /// Options that only say "Negotiate with the ticket the user already has" (no password).
    static func isUsersOwnKerberosTicket(_ options: TransportOptions) -> Bool {
        guard let auth = options.httpAuthentication, options.clientCertificate == nil, options.pinnedPublicKey == nil
        else { return false }
        return auth.schemes == [.negotiate] && auth.password.isEmpty
    }

    /// Commits the credential (once) when ``CredentialCommit/storesNetworkCredential(registering:usersOwnTicket:accepted:succeeded:)``
    /// says so; returns whether it is settled (stored, or never to be): otherwise the request
    /// keeps carrying it.
    @discardableResult
    func commit(to store: NetworkCredentialStore, accepted: Bool, succeeded: Bool) async throws -> Bool {
        guard accepted, !registering || succeeded else { return false }
        let stores = CredentialCommit.storesNetworkCredential(
            registering: registering, usersOwnTicket: isUsersOwnTicket, accepted: accepted, succeeded: succeeded)
        let first = stored.withLock { stored -> Bool in
            defer { stored = true }
            return !stored
        }
        if first, stores { try await store.commit(credential, origin: registering ? .signIn : .replacement) }
        return true
    }
}
