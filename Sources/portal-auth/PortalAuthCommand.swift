import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// The program: `portal-auth token` with a stored credential ready for use is answered at once
/// (``TokenFastPath``); every other command line goes to ``PortalAuthCommand``.
@main
enum PortalAuthMain {
    static func main() async {
        if TokenFastPath.answer(Array(CommandLine.arguments.dropFirst())) { return }
        do {
            var command = try PortalAuthCommand.parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exitReportingUsage(error)
        }
    }

    /// Exits as ArgumentParser does (help, version, messages), but with the documented exit code 2
    /// for usage errors, where ArgumentParser uses 64 (EX_USAGE).
    static func exitReportingUsage(_ error: any Error) -> Never {
        let code = PortalAuthCommand.exitCode(for: error)
        // An ExitCode is a status to pass on as it is (exec returns its command's, 64 included).
        guard code == .validationFailure, !(error is ExitCode) else { PortalAuthCommand.exit(withError: error) }
        var message = PortalAuthCommand.fullMessage(for: error) + "\n"
        writeAll(2, &message)
        exit(2)
    }
}

/// `portal-auth`: sign in to ArcGIS portals and the services they secure, from scripts and terminals.
struct PortalAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portal-auth",
        abstract: "Sign in to ArcGIS portals and the services they secure; credentials live in the desktop keyring.",
        discussion: """
            Secrets never come from the command line: use --password-stdin, --token-stdin, or the prompt.
            Environment: PORTAL_AUTH_STORE (keyring|file|memory), PORTAL_AUTH_CA_BUNDLE (PEM file), \
            PORTAL_AUTH_FILE_STORE (file store path), http_proxy/https_proxy/no_proxy.
            Exit codes: 0 ok, 1 error, 2 usage, 3 sign-in needed or refused, 4 network or TLS, 5 credential store.
            """,
        version: "0.1.0",
        subcommands: [
            Login.self, Token.self, Exec.self, Request.self, WhoAmI.self, Status.self, Logout.self, Trust.self,
            Untrust.self,
            Doctor.self,
        ]
    )
}
