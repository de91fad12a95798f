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
    /// the contexts that may hold the URL's credential (`nil`: no URL given): a context of the
    /// URL's first, then wherever the user is signed in at all (a federated server's portal, or
    /// the only portal). `nil` when the user has no account.
    static func decide(candidates: [String]?, active: Set<String>, inactive: Set<String>) -> AccountPlace? {
        if let candidates {
            for context in candidates {
                if inactive.contains(context) { return .inactive }
                if active.contains(context) { return .active }
            }
        }
        if !active.isEmpty { return .active }
        return inactive.isEmpty ? nil : .inactive
    }

    /// Where `user`'s account for `url` lives in `store`; throws, listing the accounts, when the
    /// user has none.
    static func find(_ user: String, url: URL?, store: ArcGISCredentialStore) async throws -> AccountPlace {
        let portals = try await store.summaries().filter { $0.kind != FederatedTokenCredential.kind }
        let parked = try await store.inactiveAccountItems(server: nil, username: nil).filter {
            $0.attributes.kind != FederatedTokenCredential.kind
        }
        let active = Set(portals.filter { $0.username == user }.map(\.server))
        let inactive = Set(parked.filter { $0.attributes.username == user }.map(\.attributes.server))
        let candidates = try url.map { try ServerContext.candidates(for: $0).map(\.url) }
        if let place = decide(candidates: candidates, active: active, inactive: inactive) { return place }
        let names =
            portals.compactMap { $0.username.map { "\($0) (active)" } }
            + parked.compactMap(\.attributes.username)
        throw PortalAuthError(
            .noCredential,
            "no account \(user) is signed in"
                + (names.isEmpty ? "" : " (accounts: \(Array(Set(names)).sorted().joined(separator: ", ")))"))
    }
}

extension GlobalOptions {
    /// The manager for a command that names a stored account, and the URL (see ``managerAndTarget(_:transport:storedAccount:)``).
    func accountManagerAndTarget(
        _ url: String?, account: String, transport: CurlTransport
    ) async throws -> (AuthenticationManager, URL) {
        var manager = try makeManager(transport: transport)
        let place = try await AccountPlace.find(account, url: url.map(parseURL), store: manager.arcGISCredentialStore)
        if place == .inactive {
            manager = try Self.makeManager(store: store, verbose: verbose, transport: transport, account: account)
        }
        let target = try await resolveTarget(url, manager: manager)
        try await RememberedPassword.renewIfExpiring(for: target, manager: manager)
        return (manager, target)
    }
}
