import ArgumentParser
import PortalAuth
import PortalAuthBuildInfo

#if canImport(Glibc)
import Glibc
#endif

/// The program: `portal-auth token` with a stored credential ready for use is answered at once
/// (``TokenFastPath``); every other command line goes to ``PortalAuthCommand``. Every way out
/// ends in ``exitProcess(_:)``.
@main
enum PortalAuthMain {
    static func main() async {
        // Before any secret is read: a crash must leave no core file with tokens in it. (Where the
        // system refuses, as in some sandboxes, the command still runs: nothing to tell the user.)
        try? ProcessProtection.disableCoreDumps()
        // Global options before the subcommand are moved after it (nothing to do for `token URL`).
        let arguments = GlobalOptionsAnywhere.reorder(Array(CommandLine.arguments.dropFirst()))
        if TokenFastPath.answer(arguments) { exitProcess(0) }
        exitProcess(await PortalAuthCommand.run(arguments))
    }
}

extension PortalAuthCommand {
    /// What ArgumentParser's `main()` does (parse, run, print help or the usage error), returning
    /// the exit code instead of calling `exit` itself, so that the process ends in ``exitProcess(_:)``.
    /// A usage error is one line and the help hint, not ArgumentParser's error, usage and hint.
    static func run(_ arguments: [String]) async -> Int32 {
        // `help WORD` for a word that is no command: ArgumentParser would print the top-level help.
        if arguments.first == "help", let line = UsageMistakes.explain(arguments) {
            var text = usageError(line, arguments: [])
            writeAll(2, &text)
            return 2
        }
        let arguments = ExecCommandLine.separated(arguments)
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = exitCode(for: error).rawValue
            // The documented exit code of a usage error is 2, where ArgumentParser uses 64 (EX_USAGE);
            // an ExitCode is a status to pass on as it is (exec returns its command's, 64 included).
            if code == ExitCode.validationFailure.rawValue, !(error is ExitCode) {
                // An unknown word is the first thing to fix, whatever else the parser found.
                var lines = usageError(UsageMistakes.explain(arguments) ?? message(for: error), arguments: arguments)
                writeAll(2, &lines)
                return 2
            }
            let text = fullMessage(for: error)
            if !text.isEmpty {
                var line = text + "\n"
                writeAll(code == 0 ? 1 : 2, &line)
            }
            return code
        }
    }

    /// `portal-auth: <error>` and `See 'portal-auth <command> --help'.` (the command the arguments
    /// name, if any), each on a line.
    static func usageError(_ message: String, arguments: [String]) -> String {
        var text = message.split(separator: "\n").first.map(String.init) ?? "invalid arguments"
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        // "The value 'x' is invalid for '--opt <v>': REASON": the reason names the option and the value.
        if text.hasPrefix("The value '"), let invalid = text.firstRange(of: "' is invalid for '"),
            let reason = text[invalid.upperBound...].firstRange(of: "': ")
        {
            text = String(text[reason.upperBound...])
        }
        let command = arguments.first { !$0.hasPrefix("-") }.flatMap {
            GlobalOptionsAnywhere.subcommandNames.contains($0) ? $0 : nil
        }
        let printable = String(
            text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return "portal-auth: \(printable)\nSee 'portal-auth \(command.map { $0 + " " } ?? "")--help'.\n"
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
            PORTAL_AUTH_FILE_STORE (file store path), PORTAL_AUTH_ACCOUNT (an account for one command), PORTAL_AUTH_MAX_RESPONSE_SIZE (request), \
            http_proxy/https_proxy/no_proxy.
            Global options (--cacert, --store, -v) go before or after the subcommand.
            Exit codes: 0 ok, 1 error, 2 usage, 3 sign-in needed or refused, 4 network or TLS, 5 credential store.

            Examples:
              portal-auth login --portal https://host/portal --username alice
              portal-auth token https://host/portal
              portal-auth -v --store file whoami
            """,
        version: BuildInfo.versionLine,
        subcommands: [
            Login.self, Token.self, Exec.self, Request.self, WhoAmI.self, Status.self, Switch.self, Logout.self,
            Trust.self,
            Untrust.self,
            Doctor.self, Completion.self, Serve.self, Renew.self, APIKey.self, Import.self,
        ]
    )
}
