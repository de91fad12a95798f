import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth renew`: renews, now, every stored sign-in that can renew itself and would expire
/// within the window, so that a sign-in nobody uses for a while does not die (an OAuth refresh
/// token is otherwise exchanged only when used within a day of its end). A daily systemd user
/// timer runs it; the default window of two days covers the timer's random delay and a missed run.
struct Renew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Renew the stored sign-ins that can renew themselves and would expire soon.",
        discussion: """
            One line per stored sign-in: renewed (with its new expiry), nothing to do, or cannot renew itself \
            (a pregenerated token, an API key, a password sign-in whose password is not kept, an OAuth refresh \
            token past its end). Exits 6, as status --check does, when a sign-in cannot be renewed and expires \
            within the window. An OAuth sign-in whose refresh token ends within the window exchanges it for \
            a new one. With --rotate-api-keys, an API key made here (api-key create) that ends within the \
            window is rotated as api-key rotate does, the new key lasting --api-key-expiration. Run renew \
            daily (the package's portal-auth-renew.timer does).

            Examples:
              portal-auth renew
              portal-auth renew --within 3d
              portal-auth renew --rotate-api-keys --api-key-expiration 90d
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        help: ArgumentHelp(
            "How far ahead to look (a number and s, m, h, d or w; default 2d).", valueName: "duration"),
        transform: { try DurationArgument.parse($0, option: "--within") })
    var within: DurationArgument?

    @Flag(help: "Rotate the API keys made here (api-key create) that end within the window.")
    var rotateAPIKeys = false

    @Option(
        help: ArgumentHelp("How long a rotated API key lasts: 1d to 365d (default 30d).", valueName: "duration"),
        transform: { try parseSeconds($0, option: "--api-key-expiration") })
    var apiKeyExpiration: Int?

    func validate() throws {
        if apiKeyExpiration != nil, !rotateAPIKeys {
            throw ValidationError("--api-key-expiration goes with --rotate-api-keys")
        }
        if let apiKeyExpiration, !(86_400...366 * 86_400).contains(apiKeyExpiration) {
            throw ValidationError("--api-key-expiration: an API key lasts from 1d to 365d")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let window = TimeInterval((within ?? DurationArgument(argument: "2d")!).seconds)
            // (A federated server token is renewed with its portal's sign-in.)
            let summaries = try await manager.arcGISCredentialStore.summaries().filter {
                $0.renewal != .followsPortal
            }
            if summaries.isEmpty { output("nothing is signed in") }
            var failed = false
            for summary in summaries.sorted(by: { ($0.server, $0.username ?? "") < ($1.server, $1.username ?? "") }) {
                let rotation = rotateAPIKeys ? TimeInterval(apiKeyExpiration ?? 30 * 86_400) : nil
                let outcome = await RenewOne(
                    summary: summary, manager: manager, window: window, apiKeyLifetime: rotation
                ).run()
                outputLine(outcome.line)
                failed = failed || outcome.failed
            }
            if failed { throw ExitCode(credentialsExpiringExitCode) }
        }
    }
}
