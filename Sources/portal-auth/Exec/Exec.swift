import ArgumentParser
import PortalAuth
import PortalAuthEnvironment

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth exec`: runs a command with live credentials in its environment.
struct Exec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a command with a token for a URL in its environment, kept valid while it runs.",
        discussion: """
            COMMAND gets PORTAL_AUTH_TOKEN, PORTAL_AUTH_TOKEN_EXPIRES, PORTAL_AUTH_SERVER (PORTAL_AUTH_REFERER \
            for a token bound to a referer, PORTAL_AUTH_IAP_TOKEN behind an identity-aware proxy) and \
            GDAL_HTTP_HEADER_FILE, a header file (mode 0600, in a private folder) that is rewritten with a \
            renewed token before the token expires, for as long as COMMAND runs; with a CA bundle \
            (--cacert, PORTAL_AUTH_CA_BUNDLE), also CURL_CA_BUNDLE, REQUESTS_CA_BUNDLE and SSL_CERT_FILE. \
            The variables hold the token of the start: a long-running command reads the header file. \
            COMMAND's exit status is portal-auth's (128 + the signal when a signal ended it), and the folder \
            is removed at the end. Every signal that would end portal-auth and that another process sends \
            (TERM, INT, HUP, QUIT, USR1, USR2, ALRM, VTALRM, PROF, PWR, XCPU, XFSZ, PIPE, IO, SYS, TRAP, \
            ABRT, STKFLT, the real-time signals) is passed on to COMMAND, and portal-auth waits for it; \
            one about portal-auth itself (a fault, its own limits or timers) removes the folder, stops \
            COMMAND with TERM and ends portal-auth with that signal. Only SIGKILL can leave the folder \
            behind, and the next exec removes it.

            COMMAND does not get the secrets portal-auth signed in with (ARCGIS_PASSWORD, ARCGIS_SECRET, \
            PORTAL_AUTH_CLIENT_SECRET; ARCGIS_API_KEY unless it is the token handed on).

            Examples:
              portal-auth exec "$SERVER/rest/services/Parcels/FeatureServer/0" -- \\
                ogr2ogr out.gpkg "ESRIJSON:$SERVER/rest/services/Parcels/FeatureServer/0"
              portal-auth exec -- python3 report.py
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var account: AccountOption

    @Option(
        help: ArgumentHelp(
            "Renew the header file's token when it has this many seconds left (default: the credential's renewal "
                + "leeway, 300), or with a unit: 10m.",
            valueName: "seconds"), transform: { $0 == "0" ? 0 : try parseSeconds($0, option: "--renew-before") })
    var renewBefore: Int?

    @Argument(help: "The URL the token is for (the signed-in portal's when not given).")
    var url: String?

    @Argument(
        parsing: .postTerminator,
        help: "The command to run and its arguments: everything after the URL (-- before it is optional).")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else {
            throw ValidationError("give the command to run after --, for example portal-auth exec URL -- ogrinfo ...")
        }
        if let renewBefore, renewBefore < 0 { throw ValidationError("--renew-before must be 0 or more seconds") }
    }

    func run() async throws {
        try await runReportingErrors {
            let (manager, target) = try await global.managerAndTarget(
                url, storedAccount: account.name, naming: .exec)
            var live = try await LiveCredentials.fetch(for: target, manager: manager)
            live.renewBefore = renewBefore.map(TimeInterval.init)
            PrivateFolder.removeStale()
            // From here on, a signal either reaches COMMAND or removes the folder (see GuardedCommand).
            do throws(GuardedCommand.Failure) {
                try GuardedCommand.guardSignals()
            } catch {
                throw PortalAuthError(
                    .invalidArgument,
                    "cannot catch signals (\(error.reason)), so the header file could outlive the command; nothing "
                        + "was run"
                )
            }
            let folder = try PrivateFolder.create()
            let status: Int32
            do {
                do {
                    try GuardedCommand.removeOnSignal(folder.path)
                } catch {
                    throw PortalAuthError(
                        .invalidArgument,
                        "the private folder's path \(folder.path) is too long to remove on a signal; set TMPDIR to a "
                            + "shorter one"
                    )
                }
                try folder.write(live.headerFile, to: LiveCredentials.headerFileName)
                status = try await runCommand(live, folder: folder, manager: manager)
            } catch {
                folder.remove()
                GuardedCommand.forgetFolder()
                throw error
            }
            folder.remove()
            GuardedCommand.forgetFolder()
            throw ExitCode(status)
        }
    }

    /// Starts COMMAND, keeps its header file renewed and passes signals on until it exits;
    /// returns its exit status.
    private func runCommand(
        _ live: LiveCredentials, folder: PrivateFolder, manager: AuthenticationManager
    )
        async throws -> Int32
    {
        let environment = live.environment(
            inheriting: currentEnvironment(), headerFile: folder.path(LiveCredentials.headerFileName),
            caBundle: global.caBundlePath)
        // The terminal is COMMAND's from now on: renewals in the background draw no wait notice.
        WaitNotice.shared.silence()
        let child = try startInheritingTerminal(command, environment: environment)
        let renewal = Task { await live.keepRenewed(in: folder, manager: manager) }
        // A secret from a file that rotates: signed in again at once (#39).
        let rotating = EnvironmentCredentials.inUse.flatMap { $0.readsASecretFile ? $0 : nil }
        let rotation = rotating.map { environment in
            Task { await live.keepRotated(environment, in: folder, manager: manager) }
        }
        let status = await child.waitForExit()
        renewal.cancel()
        rotation?.cancel()
        await renewal.value
        await rotation?.value
        return status
    }
}

/// Starts `command` (looked up in PATH) under the signal guard with this process's standard input,
/// output and error and `environment`; no other descriptor is inherited. When it cannot be
/// started, says why and throws the shell's status for it: 127 (not found) or 126 (not executable).
func startInheritingTerminal(_ command: [String], environment: [String: String]) throws -> GuardedCommand {
    do throws(GuardedCommand.Failure) {
        return try GuardedCommand.start(command, environment: environment)
    } catch {
        printError("cannot run \(command[0]): \(error.reason); check the command name and that it is on PATH")
        throw ExitCode(error.code == ENOENT ? 127 : 126)
    }
}

/// This process's environment.
func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let pair = String(cString: pointer)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        entry += 1
    }
    return result
}
