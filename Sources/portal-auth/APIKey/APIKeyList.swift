import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth api-key list`: the signed-in user's API keys, their slots, and the one stored here.
struct APIKeyList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your API keys: each slot's expiry, the privileges, and which key this machine holds.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var place: APIKeyPortalOption

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let keys = try await place.administration(manager, command: "list")
            let stored = try await keys.storedKey()
            let held = stored.flatMap { key in APIKeySlot(key: key.tokenInfo.accessToken).map { (key.itemID, $0) } }
            let all = try await keys.list()
            if all.isEmpty { output("No API keys on \(keys.portal).") }
            for info in all {
                output("\(info.itemID)  \(info.title ?? "")")
                output("  privileges: \(info.privileges.joined(separator: ", "))")
                if !info.httpReferrers.isEmpty { output("  referrers:  \(info.httpReferrers.joined(separator: ", "))") }
                for slot in info.slots {
                    output("  " + Self.describe(slot, held: held?.0 == info.itemID && held?.1 == slot.slot))
                }
            }
        }
    }

    /// `slot 1: active, expires 2027-01-31T00:00:00Z (stored here)`.
    static func describe(_ slot: APIKeyInfo.Slot, held: Bool) -> String {
        let state = slot.isActive.map { $0 ? "active" : "empty" } ?? "unknown"
        let expires = slot.expirationDate.map { ", expires \($0.iso8601)" } ?? ""
        return "slot \(slot.slot): \(state)\(expires)\(held ? " (stored here)" : "")"
    }
}
