import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth api-key create | list | rotate | revoke`: a user's API keys, end to end.
struct APIKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-key",
        abstract: "Create, list, rotate and revoke your API keys (signed in as a user who may create them).",
        discussion: """
            An API key credential has two slots, each holding a key. create makes one and stores its \
            slot 1 key as login --api-key-stdin stores a key; rotate mints the other slot, checks the \
            new key, stores it and only then revokes the old one, so no request fails meanwhile. \
            The app's secret is read from the portal for each step and never kept.

            Examples:
              portal-auth api-key create --portal https://host/portal --title Geocoding --privilege premium:user:geocode --expiration 30d
              portal-auth api-key list
              portal-auth api-key rotate --expiration 90d
              portal-auth api-key revoke --slot 1
            """,
        subcommands: [APIKeyCreate.self, APIKeyList.self, APIKeyRotate.self, APIKeyRevoke.self])
}

/// The portal of an `api-key` command: `--portal`, or the only signed-in one.
struct APIKeyPortalOption: ParsableArguments {
    @Option(help: ArgumentHelp("The portal (the only signed-in one by default).", valueName: "url"))
    var portal: String?

    /// The administration of the portal's keys, with the manager's credentials.
    func administration(_ manager: AuthenticationManager, command: String) async throws -> APIKeyAdministration {
        let typed = try portal.map { try PortalURLInput.read($0).absoluteString }
        let target = try await resolveTarget(
            typed, manager: manager, naming: PortalNaming(usage: "api-key \(command) --portal URL"))
        return try APIKeyAdministration(manager: manager, portalURL: target)
    }
}

extension APIKeyAdministration {
    /// The API key this machine holds for the portal, if any.
    func storedKey() async throws -> APIKeyCredential? {
        try await APIKeyLogin.keysByStoreKey(of: manager).values.first { $0.portal == portal }
    }

    /// The item of `--item`, or of the stored key; a usage error naming `--item` when neither.
    func item(_ given: String?) async throws -> String {
        if let given { return given }
        if let stored = try await storedKey(), let id = stored.itemID { return id }
        throw ValidationError(
            "no stored API key of \(portal) says its item: give --item ID (portal-auth api-key list shows them)")
    }
}

extension APIKey {
    /// The names of `api-key`'s commands (global options typed before `api-key` go after them).
    static var subcommandNames: Set<String> { Set(configuration.subcommands.map { $0._commandName }) }
}
