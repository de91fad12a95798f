import ArgumentParser
import Logging
import PortalAuth
import PortalAuthCertificate
import PortalAuthIAP
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalAuthPassword
import PortalAuthPregeneratedToken
import PortalAuthServerTrust
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("A PEM file of CA certificates to trust (env PORTAL_AUTH_CA_BUNDLE).", valueName: "file"))
    var cacert: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where credentials are kept: keyring (default), file or memory (env PORTAL_AUTH_STORE).", valueName: "store"
        ))
    var store: String?

    @Flag(name: .shortAndLong, help: "Log what happens to stderr (repeat for more). Secrets are never logged.")
    var verbose: Int

    /// The CA bundle in effect.
    var caBundlePath: String? { Self.caBundlePath(cacert: cacert) }

    /// The CA bundle in effect with `--cacert` given or not.
    static func caBundlePath(cacert: String?) -> String? {
        cacert ?? environmentVariable("PORTAL_AUTH_CA_BUNDLE").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The store kind in effect and why it was chosen.
    func storeChoice() throws -> (kind: CredentialStorageKind, reason: String) { try Self.storeChoice(store: store) }

    /// The store kind in effect with `--store` given or not, and why it was chosen.
    static func storeChoice(store: String?) throws -> (kind: CredentialStorageKind, reason: String) {
        if let store {
            guard let kind = CredentialStorageKind(rawValue: store) else {
                throw PortalAuthError(.invalidArgument, "unknown store '\(store)': choose keyring, file or memory")
            }
            return (kind, "--store \(store)")
        }
        if let env = environmentVariable("PORTAL_AUTH_STORE"), !env.isEmpty {
            guard let kind = CredentialStorageKind(rawValue: env) else {
                throw PortalAuthError(
                    .invalidArgument, "unknown store '\(env)' in PORTAL_AUTH_STORE: choose keyring, file or memory")
            }
            return (kind, "PORTAL_AUTH_STORE=\(env)")
        }
        return (.keyring, "the default")
    }

    /// Whether ``bootstrapLogging(verbose:)`` ran: swift-log allows one bootstrap per process,
    /// and a command that the `token` fast path hands on makes its manager a second time.
    private static let loggingBootstrapped = Locked(false)

    /// Logs to stderr at the level `-v` asks for (warnings without it); once per process.
    static func bootstrapLogging(verbose: Int) {
        guard
            loggingBootstrapped.withLock({ done in
                defer { done = true }; return !done
            })
        else { return }
        let level: Logger.Level = verbose >= 2 ? .trace : (verbose == 1 ? .debug : .warning)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// Builds the manager with every plugin registered. Nothing is loaded that the command does
    /// not use: libcurl is loaded by the transport on its first request.
    func makeManager(transport: CurlTransport? = nil) throws -> AuthenticationManager {
        try Self.makeManager(store: store, verbose: verbose, transport: transport ?? makeTransport())
    }

    /// The transport the manager sends through (`login --url` probes with it directly).
    func makeTransport() -> CurlTransport {
        Self.makeTransport(cacert: cacert)
    }

    static func makeTransport(cacert: String?) -> CurlTransport {
        CurlTransport(configuration: TransportConfiguration(caBundlePath: caBundlePath(cacert: cacert)))
    }

    /// The transport configuration these options make (a command may raise its limits).
    var transportConfiguration: TransportConfiguration {
        TransportConfiguration(caBundlePath: caBundlePath)
    }

    /// ``makeManager(transport:)`` from the option values (`nil`: not given), for the `token`
    /// fast path too, which reads them without the argument parser.
    static func makeManager(store: String?, verbose: Int, transport: CurlTransport) throws -> AuthenticationManager {
        bootstrapLogging(verbose: verbose)
        let choice = try storeChoice(store: store)
        let backend = choice.kind.makeBackend()
        let logger = Logger(label: "portal-auth")
        if verbose > 0 {
            logger.debug(
                "credential store",
                metadata: ["store": "\(choice.kind.rawValue)", "chosen by": "\(choice.reason)"])
        }
        // On a terminal, a request that takes more than a second says so (WaitNotice).
        let noticing: any HTTPTransport =
            WaitNotice.shared.enabled ? NoticingTransport(base: transport) : transport
        let manager = AuthenticationManager(backend: backend, transport: noticing, logger: logger)
        // Network credentials: trust decisions first (a changed key must stop everything), then
        // client certificates (stored ones are presented; new ones come from login --p12), then passwords.
        manager.register(ServerTrustHandler(decider: stdinIsTerminal ? TerminalServerTrustDecider() : nil))
        manager.register(CertificateHandler())
        manager.register(PasswordHandler(provider: TerminalNetworkPasswordProvider()))
        manager.register(PregeneratedTokenHandler())
        manager.register(TokenAuthenticationHandler(provider: TerminalPasswordProvider()))
        // Stored OAuth credentials renew themselves; a new browser sign-in only starts on a terminal.
        manager.register(
            OAuthUserHandler(
                userAgent: TerminalAuthorizationUserAgent(
                    allowed: stdinIsTerminal, hint: "portal-auth login --portal URL --client-id ID")))
        manager.register(OAuthApplicationHandler())
        // IAP credentials are read back and renewed; new proxy sign-ins go through login --config.
        manager.iapCredentialStore.register(IAPCredential.self)
        return manager
    }
}

/// An environment variable's value (getenv: ProcessInfo's environment copies every variable
/// into a dictionary first, which `portal-auth token` can do without).
func environmentVariable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// Ends the process with `code`: every way out of `portal-auth` comes here (the end of a command,
/// an error, a usage error or help, the `token` fast path).
///
/// First the HTTP transport is shut down in order: its libcurl thread is stopped and joined, its
/// connections closed (`curl_multi_cleanup`) and libcurl ended (`curl_global_cleanup`). Then
/// `_exit`, after flushing stdio, instead of `exit`: `exit` runs the atexit handlers and the
/// shared libraries' destructors (OpenSSL's `OPENSSL_cleanup`, GLib's, libcurl's) while threads
/// this program does not own still run — libsecret's GDBus worker, Swift's cooperative pool, a
/// detached handshake probe — and freeing what one of them uses is the crash at exit that 2 runs
/// in 1,900 showed (`double free or corruption` in `OPENSSL_cleanup`, `malloc_consolidate` in
/// `_dl_fini`). Nothing those destructors do matters to the result: output goes out with
/// `write(2)` (or stdio, flushed here), keyring writes are finished before a command returns,
/// and files are written and renamed before it does.
func exitProcess(_ code: Int32) -> Never {
    CurlTransport.shutdownAll()
    fflush(nil)
    _exit(code)
}

/// Runs a command body and turns errors into one line on stderr and an exit code.
func runReportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as PortalAuthError {
        throw ExitCode(report(error))
    } catch let challenge as TransportChallengeError {
        throw ExitCode(report(challenge.error))
    }
}

/// Prints an error as every command does (one line: the message and the command that fixes it;
/// the details too with PORTAL_AUTH_DEBUG_ERRORS) and returns the exit code that goes with it.
func report(_ error: PortalAuthError) -> Int32 {
    printError(error.cliMessage)
    if environmentVariable("PORTAL_AUTH_DEBUG_ERRORS") != nil { printError(error.detailedDescription) }
    return exitCode(for: error.code)
}

func exitCode(for code: PortalAuthError.Code) -> Int32 {
    switch code {
    case .noCredential, .credentialExpired, .authenticationRequired, .authenticationFailed, .invalidToken, .cancelled,
        .secretMissing, .notFederated:
        return 3
    case .hostNotFound, .connectionFailed, .timedOut, .tlsFailure, .untrustedServer, .insecureTransport: return 4
    case .keyringUnavailable, .keyringLocked, .storeFailure: return 5
    case .invalidArgument, .invalidURL, .invalidConfiguration: return 2
    default: return 1
    }
}

func printError(_ message: String) {
    // Messages can quote servers (ArcGIS and Entra error texts): no control characters reach the terminal.
    let printable = String(
        message.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    var line = "portal-auth: " + printable + "\n"
    writeAll(2, &line)
}

/// A warning on stderr: something works but is likely to fail later.
func printWarning(_ message: String) {
    printInfo("portal-auth: warning: " + message)
}

/// Prints to stdout.
func output(_ text: String) {
    var line = text + "\n"
    writeAll(1, &line)
}

/// A size in bytes: digits, optionally followed by K, M or G (binary units; `KiB`, `KB` and
/// lower case too). Nil when it is not one or does not fit.
func parseByteSize(_ text: String) -> Int? {
    let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, let value = Int(digits) else { return nil }
    let shift: Int
    switch trimmed.dropFirst(digits.count).lowercased() {
    case "", "b": shift = 0
    case "k", "kb", "kib": shift = 10
    case "m", "mb", "mib": shift = 20
    case "g", "gb", "gib": shift = 30
    default: return nil
    }
    let (bytes, overflow) = value.multipliedReportingOverflow(by: 1 << shift)
    return overflow ? nil : bytes
}

/// Parses a URL argument in its one strict reading (an http(s) scheme, a host, nothing that URL
/// readers could read differently), normalised: dot segments removed, no fragment.
func parseURL(_ string: String) throws -> URL {
    if !string.contains("://"), !string.hasPrefix("http:"), !string.hasPrefix("https:") {
        let shown = StrictURL.printable(string.hasPrefix("//") ? String(string.dropFirst(2)) : string)
        throw PortalAuthError(
            .invalidURL,
            "'\(StrictURL.printable(string))' is not an absolute http(s) URL (written with its scheme, for example https://\(shown))",
            remedy: .checkURL)
    }
    return try StrictURL.parse(string).url
}

extension Date {
    /// ISO 8601 in UTC, for people and JSON.
    var iso8601: String { formatted(.iso8601) }
}

/// Writes a whole string to a file descriptor.
func writeAll(_ fd: Int32, _ text: inout String) {
    if fd == 2 || fd == 1 { WaitNotice.shared.clearBeforeOutput() }
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}
