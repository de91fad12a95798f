import ArgumentParser
import PortalAuth
import PortalAuthCertificate
import PortalAuthPassword

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth logout`: revoke what can be revoked and remove credentials.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign out: revoke OAuth tokens where possible and remove stored credentials.",
        discussion: """
            Without options, signs out of the only signed-in portal: of its active account, when \
            several are signed in (the next, by name, becomes active), or of --account USER. --iap also signs out of the \
            identity-aware proxy (Entra Application Proxy) in front of it: its sign-out page opens \
            in the browser (printed with --no-browser) and its credential is removed. --all signs \
            out of everything, identity-aware proxies included. The HTTP password and client certificate stored for \
            the URL's host and port go too; a server trusted with portal-auth trust stays trusted \
            (portal-auth untrust forgets it). Nothing to remove is not an error: it says so and \
            exits 0, so a script may sign out twice.

            Examples:
              portal-auth logout
              portal-auth logout --portal https://host/portal
              portal-auth logout --account publisher
              portal-auth logout --portal https://host/portal --iap --no-browser
              portal-auth logout --all
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var account: AccountOption

    @Option(
        name: [.customLong("portal"), .customLong("url")],
        help: ArgumentHelp(
            "The portal or server to sign out of (--url: the same, for servers signed in to with login --url).",
            valueName: "url"))
    var portal: String?

    @Flag(help: "Sign out of everything: every portal-auth credential in the store.")
    var all = false

    @Flag(
        name: [.customLong("iap"), .customLong("proxy")],
        help: "Also sign out of the identity-aware proxy (IAP) in front of the portal (--proxy: the same, formerly).")
    var iap = false

    @Flag(help: "Print the identity-aware proxy's sign-out URL instead of opening a browser.")
    var noBrowser = false

    func validate() throws {
        if all && portal != nil { throw ValidationError("--all and --portal/--url cannot be used together") }
        if all && account.given != nil { throw ValidationError("--all and --account cannot be used together") }
    }

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            if all {
                let agent = TerminalAuthorizationUserAgent(noBrowser: noBrowser, allowed: true, purpose: .signOut)
                try await revokeInactiveAccounts(manager)
                let report = try await manager.signOut(userAgent: agent)
                try await RememberedPassword.remove(for: nil, in: manager.arcGISCredentialStore.backend)
                printReports(report.revocations)
                report.invalidatedIAPCredentials.forEach(printSignedOut)
                let removed = report.removedCredentialCount
                output(
                    "Removed \(removed) credential\(removed == 1 ? "" : "s") from the "
                        + "\(manager.arcGISCredentialStore.backend.name) store."
                )
                return
            }
            if iap, portal == nil, try await manager.arcGISCredentialStore.summaries().isEmpty {
                // Only an identity-aware proxy is signed in: sign out of it (them).
                try await signOutOfIAP(manager, url: nil)
                return
            }
            if portal == nil,
                try await manager.arcGISCredentialStore.summaries().allSatisfy({
                    $0.kind == FederatedTokenCredential.kind
                })
            {
                // Signing out twice is not an error: scripts sign out without checking first.
                output(
                    "No portal is signed in (\(manager.arcGISCredentialStore.backend.name) store); nothing to remove.")
                return
            }
            if let user = account.name, try await signOutOfInactiveAccount(user, manager: manager) { return }
            let target = try await resolveTarget(typedPortal, manager: manager, naming: .logout)
            let context = try ServerContext(url: target)
            let reports = try await manager.revokeOAuthTokens(for: context)
            printReports(reports)
            if let user = try await manager.arcGISCredentialStore.credential(for: context, reload: true)?.username,
                try await signOutOfActiveAccount(user, of: context, manager: manager)
            {
                return
            }
            var removed = try await manager.arcGISCredentialStore.forget(.serverContext(context))
            try await RememberedPassword.remove(for: context, in: manager.arcGISCredentialStore.backend)
            removed += try await manager.arcGISCredentialStore.forget(.apiKey(portal: context))  // API key (#22)
            let host = try ServerContext.host(of: target)
            for kind in [PasswordCredential.kind, CertificateCredential.kind] {
                removed += try await manager.networkCredentialStore.forget(.host(host), kind: kind)
            }
            if iap { try await signOutOfIAP(manager, url: target) }
            if removed == 0 {
                output("No credential was stored for \(context); nothing to remove.")
            } else {
                output(
                    "Signed out of \(context): removed \(removed) credential\(removed == 1 ? "" : "s") from the "
                        + "\(manager.arcGISCredentialStore.backend.name) store."
                )
            }
        }
    }

    /// `--portal`/`--url` read as every typed portal URL is (``PortalURLInput``).
    var typedPortal: String? {
        get throws { try portal.map { try PortalURLInput.read($0).absoluteString } }
    }

    private func signOutOfIAP(_ manager: AuthenticationManager, url: URL?) async throws {
        let agent = TerminalAuthorizationUserAgent(noBrowser: noBrowser, allowed: true, purpose: .signOut)
        try await manager.invalidateIAPCredentials(for: url, userAgent: agent).forEach(printSignedOut)
    }

    private func printSignedOut(_ credential: any IAPAuthorizationCredential) {
        output(
            "Signed out of the identity-aware proxy\(credential.username.map { " (\($0))" } ?? "") and removed its "
                + "credential."
        )
    }

    func printReports(_ reports: [RevocationReport]) {
        for report in reports {
            switch report.outcome {
            case .revoked: output("Revoked the OAuth tokens of \(report.username ?? "?") @ \(report.serverContext).")
            case .failed(let why):
                output(
                    "Could not revoke the OAuth tokens of \(report.username ?? "?") @ \(report.serverContext) "
                        + "(\(why)); the local credential is removed anyway."
                )
            case .notRevocable(let why):
                printInfo(
                    "The proxy tokens of \(report.username ?? "?") @ \(report.serverContext) cannot be revoked "
                        + "(\(why))."
                )
            }
        }
    }
}
