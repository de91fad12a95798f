import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth api-key revoke`: one slot's key, or both, stop working at once.
struct APIKeyRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke an API key slot (--slot 1 or 2) or the whole key (--all).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var place: APIKeyPortalOption

    @Option(help: ArgumentHelp("The API key item (default: the stored key's).", valueName: "id"))
    var item: String?

    @Option(help: ArgumentHelp("The slot to revoke: 1 or 2.", valueName: "slot"))
    var slot: Int?

    @Flag(help: "Revoke both slots: the whole key stops working.")
    var all = false

    func validate() throws {
        guard all != (slot != nil) else { throw ValidationError("give --slot 1, --slot 2 or --all") }
        if let slot, APIKeySlot(rawValue: slot) == nil { throw ValidationError("--slot is 1 or 2, not \(slot)") }
    }

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let keys = try await place.administration(manager, command: "revoke")
            let itemID = try await keys.item(item)
            let slots = all ? APIKeySlot.allCases : [APIKeySlot(rawValue: slot!)!]
            for slot in slots {
                try await keys.revoke(itemID: itemID, slot: slot)
                output("Revoked slot \(slot) of API key \(itemID).")
            }
            if let stored = try await keys.storedKey(), stored.itemID == itemID,
                let held = APIKeySlot(key: stored.tokenInfo.accessToken), slots.contains(held)
            {
                printWarning(
                    "the API key stored for \(keys.portal) was in slot \(held) and no longer works: "
                        + APIKeyLogin.storeAdvice(portal: keys.portal.url))
            }
        }
    }
}
