import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--account USER` (env `PORTAL_AUTH_ACCOUNT`): one command with a stored account other than the
/// active one (see ``Switch``).
struct AccountOption: ParsableArguments {
    @Option(
        name: .customLong("account"),
        help: ArgumentHelp(
            "Use this signed-in user's credential instead of the active account's (env PORTAL_AUTH_ACCOUNT).",
            valueName: "user"))
    var given: String?

    /// The account asked for: `--account`, or else `PORTAL_AUTH_ACCOUNT` when set and not empty.
    var name: String? { given ?? Self.fromEnvironment }

    /// `PORTAL_AUTH_ACCOUNT`, when set and not empty.
    static var fromEnvironment: String? {
        environmentVariable("PORTAL_AUTH_ACCOUNT").flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// Where a named account lives for a command on a URL: it is the active account there (the
/// ordinary manager serves it), or an inactive one (a manager over that account's items).
enum AccountPlace: Equatable {
    case active
    case inactive

    /// Decides from the server contexts where the user is the active and an inactive account and
    /// the contexts that may hold the URL's credential, most specific first: the first of them
    /// that holds the user's account. `nil` when none does (the user's account elsewhere is never
    /// used for this URL).
    static func decide(candidates: [String], active: Set<String>, inactive: Set<String>) -> (Self, String)? {
        for context in candidates {
            if inactive.contains(context) { return (.inactive, context) }
            if active.contains(context) { return (.active, context) }
        }
        return nil
    }

    /// Where `user`'s account for `url` lives: in a server context of the URL, or, for a server
    /// federated with a portal, that portal's (read from the server's `rest/info`). Throws,
    /// listing the accounts there, when the user has none.
    static func find(
        _ user: String, url: URL, manager: AuthenticationManager
    ) async throws -> (place: AccountPlace, context: ServerContext) {
        let store = manager.arcGISCredentialStore
        let portals = try await store.summaries().filter { $0.kind != FederatedTokenCredential.kind }
        let parked = try await store.inactiveAccountItems(server: nil, username: nil).filter {
            $0.attributes.kind != FederatedTokenCredential.kind
        }
        let active = Set(portals.filter { $0.username == user }.map(\.server))
        let inactive = Set(parked.filter { $0.attributes.username == user }.map(\.attributes.server))
        var candidates = try ServerContext.candidates(for: url).map(\.url)
        var found = decide(candidates: candidates, active: active, inactive: inactive)
        if found == nil, let root = ServerContext.arcGISServerRoot(of: url),
            let owning = try? await manager.services.getJSON(URL(string: root.url + "/rest/info")!)["owningSystemUrl"]?
                .stringValue,
            let portal = URL(string: owning)
        {
            candidates = try ServerContext.candidates(for: portal).map(\.url)
            found = decide(candidates: candidates, active: active, inactive: inactive)
        }
        if let (place, context) = found, let context = URL(string: context) {
            return (place, try ServerContext(url: context))
        }
        let here = Set(candidates)
        let names =
            portals.filter { here.contains($0.server) }.compactMap { $0.username.map { "\($0) (active)" } }
            + parked.filter { here.contains($0.attributes.server) }.compactMap(\.attributes.username)
        throw PortalAuthError(
            .noCredential,
            "no account \(user) is signed in to \(ServerContext.describe(url))"
                + (names.isEmpty ? "" : " (accounts: \(Array(Set(names)).sorted().joined(separator: ", ")))"))
    }

    /// Throws unless `user` is the active account of `context` (checked again after choosing the
    /// ordinary manager: a switch in another process may have changed it).
    static func requireActive(_ user: String, of context: ServerContext, store: ArcGISCredentialStore) async throws {
        let activeUser = try await store.credential(for: context, reload: true)?.username
        guard activeUser != user else { return }
        throw PortalAuthError(
            .noCredential,
            "\(user) is not the active account of \(context)" + (activeUser.map { " (\($0) is)" } ?? ""))
    }
}

extension GlobalOptions {
    /// The manager for a command that names a stored account, and the URL (see ``managerAndTarget(_:transport:storedAccount:naming:)``).
    func accountManagerAndTarget(
        _ url: String?, account: String, transport: CurlTransport, naming: PortalNaming = .token
    ) async throws -> (AuthenticationManager, URL) {
        var manager = try makeManager(transport: transport)
        let target = try await resolveTarget(url, manager: manager, naming: naming)
        let (place, context) = try await AccountPlace.find(account, url: target, manager: manager)
        if place == .inactive {
            manager = try Self.makeManager(store: store, verbose: verbose, transport: transport, account: account)
        } else {
            try await AccountPlace.requireActive(account, of: context, store: manager.arcGISCredentialStore)
        }
        try await manager.renewIfExpiring(target)
        return (manager, target)
    }
}
