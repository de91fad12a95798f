#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One user's ArcGIS credential in a server context that may hold several (named accounts).
///
/// The active account's credential is the context's ordinary item (`store=arcgis`), the one every
/// lookup finds, as earlier versions stored it; the others are kept beside it under
/// ``ArcGISCredentialStore/accountStoreName`` with their `username`, and are used only when asked
/// for by name.
public struct ArcGISAccount: Sendable, Hashable {
    /// The user.
    public var username: String
    /// The server context.
    public var serverContext: ServerContext
    /// Whether it is the context's active account.
    public var isActive: Bool
}

extension CredentialStore where Credential == any ArcGISCredential {
    /// The `store` attribute of inactive accounts' items (and of the federated server tokens
    /// derived from them), which also carry their `username`.
    public static var accountStoreName: String { "arcgis-account" }

    /// The accounts of a server context, the active one first, the others by name.
    public func accounts(for context: ServerContext) async throws -> [ArcGISAccount] {
        let active = try await credential(for: context, reload: true)
        let others = try await inactiveAccountItems(server: context.url, username: nil).compactMap {
            $0.attributes.username
        }
        // (A credential without a user, such as a pregenerated token, is no account.)
        let activeUser = active?.username
        return (activeUser.map { [ArcGISAccount(username: $0, serverContext: context, isActive: true)] } ?? [])
            + Set(others).subtracting(activeUser.map { [$0] } ?? []).sorted().map {
                ArcGISAccount(username: $0, serverContext: context, isActive: false)
            }
    }

    /// The credential of `username` in exactly this server context, active or not.
    public func credential(for context: ServerContext, username: String) async throws -> (any ArcGISCredential)? {
        if let active = try await credential(for: context, reload: true), active.username == username {
            return active
        }
        return try await accountStore(username: username).credential(for: context, reload: true)
    }

    /// Stores a portal credential as an account of its server context: the active credential
    /// when there is none, or it is the active user's; otherwise beside it, replacing that user's
    /// inactive credential, and the active account stays active. The same as
    /// ``commit(_:origin:)`` with ``CredentialOrigin/signIn``.
    @discardableResult
    public func addAccount(_ credential: any ArcGISCredential) async throws -> ArcGISAccountAddition {
        switch try await commit(credential, origin: .signIn) {
        case .storedAsInactiveAccount(let activeUser): return .inactive(activeUser: activeUser)
        case .stored, .notStored: return .active
        }
    }

    /// Makes `username` the active account of `context`. The steps keep exactly one active
    /// credential for every reader: the active one is copied among the inactive ones, replaced
    /// in one change, and the chosen one's inactive copy removed. Federated server tokens derived
    /// from the context go with their account. Runs under the context's cross-process renewal
    /// lock, so switches and renewals in other processes take turns with it.
    ///
    /// - Throws: ``PortalAuthError/Code/noCredential`` when `username` has no account there.
    public func switchAccount(_ context: ServerContext, to username: String) async throws {
        try await withScopeLock(.serverContext(context)) {
            let active = try await self.credential(for: context, reload: true)
            if active?.username == username { return }
            let chosen = accountStore(username: username)
            guard let credential = try await chosen.credential(for: context, reload: true) else {
                throw try await unknownAccount(username, in: context)
            }
            if let active, let activeUser = active.username {
                let parked = accountStore(username: activeUser)
                try await parked.add(active)
                for token in try await derivedTokens(of: context, in: self) { try await parked.add(token) }
            }
            try await promote(credential, from: chosen)
        }
    }

    /// Removes the account `username` of `context` with the federated server tokens derived from
    /// it; when it was the active one, the first inactive account (by name) becomes active.
    /// Returns how many items were removed and the account now active, if any.
    public func removeAccount(
        _ context: ServerContext, username: String
    ) async throws -> (removed: Int, nowActive: String?) {
        try await withScopeLock(.serverContext(context)) {
            let active = try await self.credential(for: context, reload: true)
            guard active?.username == username else {
                return (try await accountStore(username: username).remove(context), active?.username)
            }
            let next = try await accounts(for: context).first { !$0.isActive }?.username
            guard let next else { return (try await remove(context), nil) }
            let chosen = accountStore(username: next)
            guard let credential = try await chosen.credential(for: context, reload: true) else {
                return (try await remove(context), nil)
            }
            return (try await promote(credential, from: chosen) + 1, next)
        }
    }

    /// Removes every inactive account's items, one server context at a time under its lock;
    /// returns how many were removed.
    @discardableResult
    func removeAllAccounts() async throws -> Int {
        try await forgetEveryItem(of: Self.accountStoreName)
    }

    /// A store of `username`'s inactive credentials (its accounts' items and the federated server
    /// tokens derived from them): a manager over an ``AccountCredentialBackend`` reads, renews
    /// and federates through one.
    public func accountStore(username: String) -> ArcGISCredentialStore {
        let store = ArcGISCredentialStore(backend: AccountCredentialBackend(base: backend, username: username))
        store.engine.registerDecoders(of: engine)
        return store
    }

    /// The items of inactive accounts (of one server, or every one; of one user, or every one).
    public func inactiveAccountItems(server: String?, username: String?) async throws -> [StoredCredentialItem] {
        let backend = self.backend
        let query = CredentialQuery(store: Self.accountStoreName, server: server, username: username)
        return try await BlockingIO.run(backend.isBlocking) { try backend.search(query, withSecrets: false) }
    }

    /// Makes `credential`, of the inactive account `chosen`, the active one: the federated tokens
    /// derived from the context go, it replaces the active credential in one change, its own
    /// federated tokens follow it, then
    /// its inactive copy goes. Returns how many of the former active account's tokens went.
    @discardableResult
    private func promote(_ credential: any ArcGISCredential, from chosen: ArcGISCredentialStore) async throws -> Int {
        let context = credential.serverContext
        // The former account's server tokens go first: no reader sees the new active credential
        // beside them (one that sees the former credential without them federates again, and
        // ``commit(_:origin:)`` waits for this switch and then keeps the token out).
        let removed = try await removeDerivedTokens(of: context, in: self)
        try await add(credential)
        for token in try await derivedTokens(of: context, in: chosen) { try await add(token) }
        try await chosen.remove(context)
        return removed
    }

    private func unknownAccount(_ username: String, in context: ServerContext) async throws -> PortalAuthError {
        let names = try await accounts(for: context).map { $0.isActive ? $0.username + " (active)" : $0.username }
        return PortalAuthError(
            .noCredential,
            "\(context) has no account \(username)"
                + (names.isEmpty ? "" : " (accounts: \(names.joined(separator: ", ")))"),
            remedy: AuthenticationManager.signInRemedy(for: context, credential: nil))
    }

    private func derivedTokens(
        of context: ServerContext, in store: ArcGISCredentialStore
    ) async throws -> [any ArcGISCredential] {
        try await store.allCredentials(reload: true).filter { $0.derivedFrom == context }
    }

    @discardableResult
    func removeDerivedTokens(of context: ServerContext, in store: ArcGISCredentialStore) async throws -> Int {
        var removed = 0
        for token in try await derivedTokens(of: context, in: store) {
            removed += try await store.remove(token.scope, kind: type(of: token).kind, under: .serverContext(context))
        }
        return removed
    }
}
