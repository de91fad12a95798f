import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `logout` of one of several accounts of a portal (see ``Switch``).
extension Logout {
    /// `--account USER` where USER is an inactive account: revokes and removes its credentials,
    /// those derived from it and its remembered password, and nothing else. False when USER is the active account (the
    /// ordinary sign-out's business); throws, listing the accounts, when USER has none.
    func signOutOfInactiveAccount(_ user: String, manager: AuthenticationManager) async throws -> Bool {
        let url = try await resolveTarget(typedPortal, manager: manager, naming: .logout)
        let (place, context) = try await AccountPlace.find(user, url: url, manager: manager)
        guard place == .inactive else {
            try await AccountPlace.requireActive(user, of: context, store: manager.arcGISCredentialStore)
            return false
        }
        let own = try GlobalOptions.makeManager(
            store: global.store, verbose: global.verbose, transport: global.makeTransport(), account: user)
        printReports(try await own.revokeOAuthTokens(for: context))
        let (removed, _) = try await manager.arcGISCredentialStore.removeAccount(context, username: user)
        try await RememberedPassword.remove(for: context, username: user, in: manager.arcGISCredentialStore.backend)
        output(signedOutLine(user, context: context, removed: removed, store: manager))
        return true
    }

    /// The active account `user` of `context` when other accounts are signed in there: removes
    /// it (its remembered password too) and makes the next account active. False when it is the
    /// only account (the ordinary sign-out removes everything of the portal).
    func signOutOfActiveAccount(
        _ user: String, of context: ServerContext, manager: AuthenticationManager
    ) async throws -> Bool {
        let store = manager.arcGISCredentialStore
        guard try await store.accounts(for: context).count > 1 else { return false }
        let (removed, next) = try await store.removeAccount(context, username: user)
        try await RememberedPassword.remove(for: context, username: user, in: store.backend)
        output(signedOutLine(user, context: context, removed: removed, store: manager))
        if let next { output("\(next) is now the active account of \(context).") }
        return true
    }

    private func signedOutLine(
        _ user: String, context: ServerContext, removed: Int, store manager: AuthenticationManager
    ) -> String {
        "Signed out of \(context) as \(user): removed \(removed) credential\(removed == 1 ? "" : "s") from the \(manager.arcGISCredentialStore.backend.name) store."
    }
}

extension Logout {
    /// `--all`: revokes the OAuth tokens of the inactive accounts too (the manager's sign-out
    /// revokes the active ones' and removes everything).
    func revokeInactiveAccounts(_ manager: AuthenticationManager) async throws {
        let items = try await manager.arcGISCredentialStore.inactiveAccountItems(server: nil, username: nil)
        for user in Set(items.compactMap(\.attributes.username)).sorted() {
            let own = try GlobalOptions.makeManager(
                store: global.store, verbose: global.verbose, transport: global.makeTransport(), account: user)
            printReports(try await own.revokeOAuthTokens())
        }
    }
}
