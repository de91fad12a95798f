// Which manager a command on a URL works with: the environment's, in memory, or the stored credentials'.
import PortalAuth
import PortalAuthEnvironment
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension GlobalOptions {
    /// The manager a command on `url` works with, and the URL (when not given: the environment's
    /// portal, or the only signed-in one).
    ///
    /// When the environment supplies a credential for the URL, it wins over the stored ones: the
    /// manager keeps everything in memory and signs in to the environment's portal at once.
    /// `storedAccount` (an account named with `--account`) chooses that stored account over it.
    /// Otherwise the stored credentials apply, and a token sign-in whose password is remembered
    /// gets a new token first if its own is expiring.
    func managerAndTarget(
        _ url: String?, transport: CurlTransport? = nil, storedAccount: String? = nil, naming: PortalNaming = .token
    ) async throws -> (AuthenticationManager, URL) {
        let (source, target) = try await sourceAndTarget(
            url, transport: transport, storedAccount: storedAccount, naming: naming)
        return (source.manager, target)
    }

    /// The credential source a command on `url` works with (its manager is
    /// ``managerAndTarget(_:transport:storedAccount:naming:)``'s), and the URL: ask the source for the
    /// decision (``CredentialSource/decision(for:askedBy:includingProxy:renewingFirst:interactive:)``)
    /// and it names itself in it.
    func sourceAndTarget(
        _ url: String?, transport: CurlTransport? = nil, storedAccount: String? = nil, naming: PortalNaming = .token
    ) async throws -> (any CredentialSource, URL) {
        let transport = transport ?? makeTransport()
        if let storedAccount {
            let (manager, target) = try await accountManagerAndTarget(
                url, account: storedAccount, transport: transport, naming: naming)
            return (StoredCredentialSource(manager: manager, followingChanges: false), target)
        }
        if let environment = try EnvironmentCredentials.read() {
            let target = try url.map(parseURL) ?? URL(string: environment.portal.url)!
            let manager = try Self.makeManager(
                store: store, verbose: verbose, transport: transport, environment: environment)
            // An API key's scope is the portal and its helper services (read with the key, once); a
            // sign-in's, the portal and its servers: the rest is the stored credentials'.
            try await environment.present(in: manager)
            // (The first source of the chain serve builds; the stored manager is made only when it declines,
            // so that a command the environment answers never chooses, or announces, a store.)
            let source = EnvironmentCredentialSource(credentials: environment, manager: manager)
            if try await source.answers(for: target, askedBy: .program) {
                if manager.apiKeySource != nil { environmentAPIKeyInUse.store(true, ordering: .relaxed) }
                // Signed in at the start, as a stored credential would be there: the commands that
                // never prompt without a terminal find it, and federate or renew from it.
                try await environment.signIn(in: manager)
                environmentCredentialsInUse.withLock { $0 = environment }
                return (source, target)
            }
        }
        let stored = try makeManager(transport: transport)
        let target = try await resolveTarget(url, manager: stored, naming: naming)
        try await stored.renewIfExpiring(target)
        return (StoredCredentialSource(manager: stored, followingChanges: false), target)
    }
}
