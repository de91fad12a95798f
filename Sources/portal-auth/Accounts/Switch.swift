import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth switch [URL] USER`: which signed-in account of a portal is the active one.
struct Switch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make another signed-in account of a portal the active one (the one commands use by default).",
        discussion: """
            Sign in to a portal as a second user and both accounts are kept; the first stays active. \
            The switch is one change to the store, seen at once by every process; for a single \
            command, --account USER (or PORTAL_AUTH_ACCOUNT) uses another account without switching. \
            portal-auth status lists the accounts and marks the active one.

            Examples:
              portal-auth switch publisher
              portal-auth switch https://host/portal alice
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The portal (the only signed-in one by default), then the user.", valueName: "url] [user"))
    var words: [String] = []

    func validate() throws {
        guard (1...2).contains(words.count) else {
            throw ValidationError("give the user to switch to: switch [URL] USER")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let user = words[words.count - 1]
            let typed = try words.count == 2 ? PortalURLInput.read(words[0]).absoluteString : nil
            let target = try await resolveTarget(typed, manager: manager, naming: .switchAccount)
            let context = try ServerContext(url: target)
            try await manager.arcGISCredentialStore.switchAccount(context, to: user)
            output("Switched \(context) to \(user).")
        }
    }
}

/// What `login` adds when a second user signs in to a portal: which account stays active, and how
/// to switch (`nil` when the new credential is the active one).
func accountNote(_ addition: ArcGISAccountAddition, user: String, context: ServerContext) -> String? {
    guard case .inactive(let active) = addition else { return nil }
    return
        "Added \(user) as another account of \(context); \(active) stays active. Switch with: portal-auth switch \(context) \(user) (or use --account \(user) for one command)."
}
