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
    /// fast path too, which reads them without the argument parser. With `environment`, the
    /// manager keeps everything in memory and signs in to the environment's portal from it.
    static func makeManager(
        store: String?, verbose: Int, transport: CurlTransport, environment: EnvironmentCredentials? = nil
    ) throws -> AuthenticationManager {
        bootstrapLogging(verbose: verbose)
        let choice = try storeChoice(store: store)
        let backend: any CredentialStorageBackend =
            environment == nil ? choice.kind.makeBackend() : MemoryCredentialBackend()
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
        if let environment { manager.register(EnvironmentSignInHandler(credentials: environment)) }
        manager.register(PregeneratedTokenHandler())
        // A remembered password (login --remember-password) answers before the terminal is asked.
        manager.register(
            TokenAuthenticationHandler(
                provider: RememberedPasswordProvider(backend: backend, fallback: TerminalPasswordProvider())))
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
