import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth api-key rotate`: the stored key replaced by a new one in its other slot, with no
/// moment in which no key works.
struct APIKeyRotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Replace the stored API key without downtime: mint the other slot, check, store, revoke the old.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var place: APIKeyPortalOption

    @Option(help: ArgumentHelp("The API key item (default: the stored key's).", valueName: "id"))
    var item: String?

    @Option(
        help: ArgumentHelp(
            "How long the new key lasts: 1d to 365d (default: the slot's expiry on the portal).",
            valueName: "duration"),
        transform: { try parseSeconds($0, option: "--expiration") })
    var expiration: Int?

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            try manager.arcGISCredentialStore.backend.checkAvailable()
            let keys = try await place.administration(manager, command: "rotate")
            guard let stored = try await keys.storedKey() else {
                throw PortalAuthError(
                    .noCredential, "no API key is stored for \(keys.portal)", remedy: .storeAPIKey(portal: keys.portal))
            }
            let outcome = try await keys.rotate(
                stored, itemID: try await keys.item(item),
                expiration: expiration.map { Date().addingTimeInterval(TimeInterval($0)) }
            ) { step, error in
                output(Self.describe(step) + (error.map { ": failed (\(Self.message($0)))" } ?? ": done"))
            }
            switch outcome {
            case .rotated(let old, let new):
                output("Rotated the API key for \(keys.portal): slot \(new) is stored, slot \(old) is revoked.")
            case .rotatedOldKeyStillLive(let old, let new):
                printWarning(
                    "slot \(new) is stored, but slot \(old) still works: revoke it with portal-auth api-key revoke --slot \(old)"
                )
                throw ExitCode(1)
            case .failed(let step):
                printError("the rotation failed at \(step); the stored key is unchanged and still works")
                throw ExitCode(1)
            }
        }
    }

    static func describe(_ step: APIKeyRotation.Step) -> String {
        switch step {
        case .mint: "mint a key in the other slot"
        case .verify: "check the new key on the portal"
        case .commit: "store the new key"
        case .revoke: "revoke the old slot"
        }
    }

    static func message(_ error: any Error) -> String {
        (error as? PortalAuthError)?.message ?? (error as? TransportChallengeError)?.error.message
            ?? "\(type(of: error))"
    }
}
