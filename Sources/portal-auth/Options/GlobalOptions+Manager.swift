import Logging
import PortalAuth
import PortalAuthCertificate
import PortalAuthEnvironment
import PortalAuthIAP
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalAuthPassword
import PortalAuthPregeneratedToken
import PortalAuthServerTrust
import PortalAuthToken

/// What the global options make: the manager, with every plugin registered, and its transport.
extension GlobalOptions {
    /// Builds the manager with every plugin registered. Nothing is loaded that the command does
    /// not use: libcurl is loaded by the transport on its first request.
    func makeManager(transport: CurlTransport? = nil) throws -> AuthenticationManager {
        try Self.makeManager(store: store, verbose: verbose, transport: transport ?? makeTransport())
    }

    /// The transport the manager sends through (`login --url` probes with it directly).
    func makeTransport() -> CurlTransport {
        Self.makeTransport(cacert: cacert)
    }

    /// ``makeTransport()`` from the option's value (`nil`: not given).
    static func makeTransport(cacert: String?) -> CurlTransport {
        CurlTransport(configuration: TransportConfiguration(caBundlePath: caBundlePath(cacert: cacert)))
    }

    /// The ArcGIS credential types the plugins ``makeManager(transport:)`` registers make (the
    /// store registers the core's own), for a reader of the store without a manager.
    static let storedArcGISCredentialTypes: [any ArcGISCredential.Type] = [
        PregeneratedTokenCredential.self, TokenCredential.self, OAuthUserCredential.self,
        OAuthApplicationCredential.self,
    ]

    /// ``makeManager(transport:)`` from the option values (`nil`: not given), for the `token`
    /// fast path too, which reads them without the argument parser. With `environment`, the
    /// manager keeps everything in memory and signs in to the environment's portal from it. With
    /// `account`, its ArcGIS credentials are that inactive account's (renewed and federated there).
    static func makeManager(
        store: String?, verbose: Int, transport: CurlTransport, environment: EnvironmentCredentials? = nil,
        account: String? = nil
    ) throws -> AuthenticationManager {
        bootstrapLogging(verbose: verbose)
        let choice = try storeChoice(store: store)
        var backend: any CredentialStorageBackend =
            environment == nil ? makeBackend(choice) : MemoryCredentialBackend()
        if let account { backend = AccountCredentialBackend(base: backend, username: account) }
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
        // A remembered password renews a token unattended, in the manager's one renewal path.
        manager.setUnattendedRenewal(Self.unattendedRenewal(environment: environment, backend: backend, logger: logger))
        // IAP credentials are read back and renewed; new proxy sign-ins go through login --config.
        manager.iapCredentialStore.register(IAPCredential.self)
        return manager
    }

    /// What renews a token unattended: the environment's secret as it is now (a rotated file is
    /// read again), not as it was; else a password remembered in `backend`. The token fast path asks
    /// the same one (with no environment: it hands those commands over).
    static func unattendedRenewal(
        environment: EnvironmentCredentials? = nil, backend: any CredentialStorageBackend,
        logger: Logger = Logger(label: "portal-auth", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> any UnattendedRenewal {
        if let environment { return EnvironmentRenewal(credentials: environment) }
        return RememberedPasswordRenewal(backend: backend, logger: logger)
    }
}
