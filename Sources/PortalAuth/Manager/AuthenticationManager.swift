public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Routes authentication challenges to registered handler plugins, keeps the credentials they
/// return, and sends ArcGIS requests with the right credential attached.
///
/// - A request gets the credential of its own ``ServerContext`` only (never another host's,
///   never across a redirect to another host, never over plain http when the token requires SSL).
/// - A challenge (ArcGIS 499/498, 403 `GWM_0003` without a token, HTTP 401, TLS trust or client
///   certificate) goes to the first plugin that accepts it; the request is retried exactly once.
/// - Concurrent challenges for one server context share one plugin call and one token request.
/// - Tokens close to expiry are renewed before use, once across tasks and across processes.
/// - For a service on a federated ArcGIS Server, a server token is obtained from the owning
///   portal's credential without asking the user, and cached per server.
///
/// The manager owns the request loop (`+RequestLoop`: ``send(_:)``, one attempt, its
/// classification, the answer to each outcome) and the registry of plugins; one resolver per kind
/// of challenge owns that kind's concurrency state (`Resolvers/`: `ArcGISResolver` with renewal
/// and federation, `NetworkResolver`, `IAPResolver`). `+NetworkChallenges`, `+IAP` and `+SignOut`
/// hold the public entry points of each kind. `docs/development/architecture.md` draws it.
public final class AuthenticationManager: Sendable {
    /// The ArcGIS credentials.
    public let arcGISCredentialStore: ArcGISCredentialStore
    /// The network credentials.
    public let networkCredentialStore: NetworkCredentialStore
    /// The IAP credentials (identity-aware proxies).
    public let iapCredentialStore: IAPCredentialStore
    /// The transport and helpers given to plugins.
    public let services: AuthenticationServices
    /// Whether renewals take a lock shared with other processes (true for persistent backends).
    public let usesCrossProcessLocks: Bool

    /// The registry: the plugins, in order, and the one way a challenge reaches them.
    let registry: HandlerRegistry
    /// Answers ArcGIS challenges, renews ArcGIS credentials and federates servers.
    let arcGIS: ArcGISResolver
    /// Answers network challenges.
    let network: NetworkResolver
    /// Answers identity-aware proxies' sign-in demands.
    let iap: IAPResolver
    /// The proxy's token alone: a request that must go without the host's stored HTTP password
    /// (``httpAuthenticationOffer(for:)``) goes through it.
    let proxyOnlyTransport: any HTTPTransport
    /// The transport without any credential of its own: the loop sends each attempt through it
    /// with what the attempt carries (``sendAttempt(_:_:_:)``: the ArcGIS credential, the proxy's,
    /// the network credentials merged once).
    let attemptTransport: any HTTPTransport
    /// Each host's gate: at most ``requestsInFlightPerHost`` requests in the transport at once.
    let gates = Locked<[String: AsyncGate]>([:])
    /// API key (#22): the key ``apiKey`` holds; used only where no user credential applies (+APIKey).
    let apiKeyStorage = Locked<APIKeyCredential?>(nil)
    /// API key (#39): the file ``apiKeySource`` reads the key from, when it is set (+APIKey).
    let apiKeySourceStorage = Locked<RotatingAPIKey?>(nil)
    /// API key: the keys ``apiKeys`` holds, each within its own scope (+APIKey).
    let apiKeysStorage = Locked<[APIKeyCredential]>([])
    /// The hosts known to have a network credential, until when (``mayForward(_:)``, +Forwarding).
    let forwardedHosts = Locked<[String: ContinuousClock.Instant]>([:])

    /// The logger.
    public var logger: Logger { services.logger }
    /// The transport.
    public var transport: any HTTPTransport { services.transport }

    /// Creates a manager over the stores and a transport. Without an IAP store, IAP
    /// credentials are kept in the ArcGIS store's backend.
    ///
    /// Every request made through ``services`` (plugins' token requests included) carries the
    /// IAP credential of its host, when the host is behind an identity-aware proxy.
    public init(
        arcGISCredentialStore: ArcGISCredentialStore, networkCredentialStore: NetworkCredentialStore,
        iapCredentialStore: IAPCredentialStore? = nil,
        transport: any HTTPTransport, logger: Logger = Logger(label: "portal-auth")
    ) {
        self.arcGISCredentialStore = arcGISCredentialStore
        self.networkCredentialStore = networkCredentialStore
        let iapStore = iapCredentialStore ?? IAPCredentialStore(backend: arcGISCredentialStore.backend)
        self.iapCredentialStore = iapStore
        self.usesCrossProcessLocks = arcGISCredentialStore.backend.isPersistent
        // The credential chain: every request, plugins' own included, carries its host's network
        // credentials (a pinned key, a client certificate, an HTTP password)...
        let networked = NetworkCredentialTransport(base: transport, store: networkCredentialStore)
        let iapAuthorization = IAPAuthorization(
            store: iapStore, services: AuthenticationServices(transport: networked, logger: logger),
            usesCrossProcessLocks: iapStore.backend.isPersistent)
        // ...and, behind an identity-aware proxy, the proxy's token.
        let chain = IAPAuthorizingTransport(base: networked, iapAuthorization: iapAuthorization)
        self.services = AuthenticationServices(transport: chain, logger: logger)
        self.proxyOnlyTransport = IAPAuthorizingTransport(base: transport, iapAuthorization: iapAuthorization)
        self.attemptTransport = transport
        self.registry = HandlerRegistry(arcGISStore: arcGISCredentialStore, iapStore: iapStore, services: services)
        self.arcGIS = ArcGISResolver(
            store: arcGISCredentialStore, registry: registry, usesCrossProcessLocks: usesCrossProcessLocks)
        self.network = NetworkResolver(store: networkCredentialStore, registry: registry)
        self.iap = IAPResolver(authorization: iapAuthorization, registry: registry)
    }

    /// Creates a manager whose two stores share one backend.
    public convenience init(
        backend: any CredentialStorageBackend, transport: any HTTPTransport,
        logger: Logger = Logger(label: "portal-auth")
    ) {
        self.init(
            arcGISCredentialStore: ArcGISCredentialStore(backend: backend),
            networkCredentialStore: NetworkCredentialStore(backend: backend),
            iapCredentialStore: IAPCredentialStore(backend: backend),
            transport: transport, logger: logger)
    }

    // MARK: - Plugins

    /// Registers a handler plugin after those already registered, and the credential types it makes.
    public func register(_ handler: any AuthenticationChallengeHandler) {
        for type in handler.arcGISCredentialTypes { registerArcGIS(type) }
        for type in handler.networkCredentialTypes { registerNetwork(type) }
        for type in handler.iapCredentialTypes { registerIAP(type) }
        registry.append(handler)
    }

    private func registerArcGIS<C: ArcGISCredential>(_ type: C.Type) { arcGISCredentialStore.register(type) }
    private func registerNetwork<C: NetworkCredential>(_ type: C.Type) { networkCredentialStore.register(type) }
    private func registerIAP<C: IAPAuthorizationCredential>(_ type: C.Type) { iapCredentialStore.register(type) }

    /// The registered plugins, in order.
    public var handlers: [any AuthenticationChallengeHandler] { registry.handlers }

    // MARK: - Requests

    /// Sends an ArcGIS request: attaches the credential of the URL's server context, answers
    /// challenges through the plugins, retries once, follows redirects without carrying a
    /// credential to another context, and checks the answer for ArcGIS errors.
    public func send(_ request: ArcGISRequest) async throws -> ArcGISResponse {
        try await send(request, presetting: nil)
    }

    /// Sends `request` as ``send(_:)`` does, its first attempt carrying the credentials `decision`
    /// gave for its URL (``forwardingDecision(for:)``, ``forwardingPermission(for:)``) without deciding
    /// again: `serve`, which decided whether to forward a request, decides once. A challenge, a
    /// redirect, a retry, an attempt that waited for its host's gate or for a sign-in decides anew, and
    /// so does one whose decision another manager made or was made for another URL
    /// (``CredentialDecision/url``, compared as written).
    package func send(_ request: ArcGISRequest, as decision: CredentialDecision) async throws -> ArcGISResponse {
        try await send(request, presetting: nil, decided: decision)
    }

    // MARK: - Credentials for use

    /// A valid credential for `url` without sending the request itself, as a program that hands
    /// the token to another tool needs it: the stored one (renewed when needed), or a federated server token obtained from
    /// the owning portal's credential. With `interactive`, missing or expired credentials are
    /// asked of the plugins; without, they are errors whose remedy says how to sign in.
    public func credential(for url: URL, interactive: Bool) async throws -> any ArcGISCredential {
        if let stored = try await arcGISCredentialStore.credential(for: url),
            try await arcGIS.isOwnFederatedToken(stored)  // another account's, from before a switch: obtained again
        {
            if !stored.tokenInfo.expires(within: stored.renewalLeeway) { return stored }
            if let usable = try await arcGIS.renew(stored) { return usable }
            guard interactive else {
                throw PortalAuthError(
                    .credentialExpired,
                    "the credential for \(stored.serverContext) "
                        + "expired\(stored.tokenInfo.expirationDate.map { " at " + $0.formatted(.iso8601) } ?? "")",
                    remedy: Self.signInRemedy(for: stored.serverContext, credential: stored))
            }
        }
        if let key = try apiKeyForUse(url) { return key }  // API key (#22): where no user credential applies
        let synthetic = ArcGISError(code: 499, message: "Token Required", messageCode: "GWM_0003")
        if !interactive, ServerContext.arcGISServerRoot(of: url) == nil {
            let context = try ServerContext(url: url)
            throw PortalAuthError(
                .noCredential, "no credential for \(context)", remedy: Self.signInRemedy(for: context, credential: nil))
        }
        guard
            let credential = try await arcGIS.resolveArcGISChallenge(
                url: url, error: synthetic, sent: nil, interactive: interactive)
        else {
            let context = try ServerContext(url: url)
            throw PortalAuthError(
                .noCredential, "no credential for \(context)", remedy: Self.signInRemedy(for: context, credential: nil))
        }
        return credential
    }

    /// How to sign in to `context` again: as `credential` was made, or with a username and
    /// password (a `token` sign-in) when there is none.
    static func signInRemedy(for context: ServerContext, credential: (any ArcGISCredential)?) -> PortalAuthError.Remedy
    {
        .signIn(credential?.howToSignIn ?? .token(context))
    }
}
