import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth api-key create`: a new API key credential, its slot 1 key stored at once.
struct APIKeyCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an API key and store it for the portal and its services (as login --api-key-stdin does).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var place: APIKeyPortalOption

    @Option(help: "The API key item's title.")
    var title: String

    @Option(
        name: .customLong("privilege"),
        help: ArgumentHelp("A privilege the key has (premium:user:geocode, ...); repeat for more.", valueName: "name"))
    var privileges: [String] = []

    @Option(
        name: .customLong("referrer"),
        help: ArgumentHelp("An HTTP referrer the key is bound to; repeat for more.", valueName: "url"))
    var referrers: [String] = []

    @Option(
        help: ArgumentHelp("How long the key lasts: 1d to 365d (default 30d).", valueName: "duration"),
        transform: { try parseSeconds($0, option: "--expiration") })
    var expiration: Int = 30 * 86_400

    @Option(
        name: .customLong("host"),
        help: ArgumentHelp("Another host the key may be sent to (host or host:port; https only).", valueName: "host"))
    var hosts: [String] = []

    func validate() throws {
        guard !privileges.isEmpty else { throw ValidationError("give the key at least one --privilege") }
        guard (86_400...366 * 86_400).contains(expiration) else {
            throw ValidationError("--expiration: an API key lasts from 1d to 365d")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            try manager.arcGISCredentialStore.backend.checkAvailable()
            let keys = try await place.administration(manager, command: "create")
            let new = APIKeyAdministration.NewKey(
                title: title, privileges: privileges, httpReferrers: referrers,
                expirationDate: Date().addingTimeInterval(TimeInterval(expiration)), hosts: hosts)
            let (info, credential) = try await keys.create(new)
            let expires = credential.tokenInfo.expirationDate.map { "; it expires \($0.iso8601)" } ?? ""
            output(
                "Created API key \(info.itemID) (\(title)) and stored its slot 1 key for "
                    + "\(APIKeyLogin.describeScope(credential))\(expires) (in \(manager.arcGISCredentialStore.backend.name))."
            )
        }
    }
}
