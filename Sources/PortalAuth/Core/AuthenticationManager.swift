public import Logging
import Synchronization

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
public final class AuthenticationManager: Sendable {
    /// The ArcGIS credentials.
    public let arcGISCredentialStore: ArcGISCredentialStore
    /// The network credentials.
    public let networkCredentialStore: NetworkCredentialStore
    /// The identity-aware proxy credentials (IAP).
    public let proxyCredentialStore: ProxyCredentialStore
    /// The transport and helpers given to plugins.
    public let services: AuthenticationServices
    /// Whether renewals take a lock shared with other processes (true for persistent backends).
    public let usesCrossProcessLocks: Bool

    private let handlerList = Mutex<[any AuthenticationChallengeHandler]>([])
    private let arcGISFlights = SingleFlight<String, (any ArcGISCredential)?>()
    private let renewalFlights = SingleFlight<String, (any ArcGISCredential)?>()
    private let networkFlights = SingleFlight<String, ProvisionalNetworkCredential?>()
    /// The last answer to each host's network challenges (`scheme://host:port category`).
    private let recentNetworkAnswers = Mutex<[String: ProvisionalNetworkCredential]>([:])
    private let proxyFlights = SingleFlight<String, (any ProxyAuthorizationCredential)?>()
    private let proxies: ProxyAuthorization
    /// ``transport`` without the layer that adds stored network credentials.
    private let requestTransport: any HTTPTransport

    /// The logger.
    public var logger: Logger { services.logger }
    /// The transport.
    public var transport: any HTTPTransport { services.transport }

    /// Creates a manager over the stores and a transport. Without a proxy store, proxy
    /// credentials are kept in the ArcGIS store's backend.
    ///
    /// Every request made through ``services`` (plugins' token requests included) carries the
    /// proxy credential of its host, when the host is behind an identity-aware proxy.
    public init(
        arcGISCredentialStore: ArcGISCredentialStore, networkCredentialStore: NetworkCredentialStore,
        proxyCredentialStore: ProxyCredentialStore? = nil,
        transport: any HTTPTransport, logger: Logger = Logger(label: "portal-auth")
    ) {
        self.arcGISCredentialStore = arcGISCredentialStore
        self.networkCredentialStore = networkCredentialStore
        let proxyStore = proxyCredentialStore ?? ProxyCredentialStore(backend: arcGISCredentialStore.backend)
        self.proxyCredentialStore = proxyStore
        self.usesCrossProcessLocks = arcGISCredentialStore.backend.name != "memory"
        // Every request, plugins' own included, carries its host's network credentials (a pinned
        // key, a client certificate, an HTTP password)...
        let networked = NetworkCredentialTransport(base: transport, store: networkCredentialStore)
        let proxies = ProxyAuthorization(
            store: proxyStore, services: AuthenticationServices(transport: networked, logger: logger),
            usesCrossProcessLocks: proxyStore.backend.name != "memory")
        self.proxies = proxies
        // ...and, behind an identity-aware proxy, the proxy's token.
        self.services = AuthenticationServices(
            transport: ProxyAuthorizingTransport(base: networked, proxies: proxies), logger: logger)
        // The manager's own requests apply the network credentials themselves (it must know what it sent).
        self.requestTransport = ProxyAuthorizingTransport(base: transport, proxies: proxies)
    }

    /// Creates a manager whose two stores share one backend.
    public convenience init(
        backend: any CredentialStorageBackend, transport: any HTTPTransport,
        logger: Logger = Logger(label: "portal-auth")
    ) {
        self.init(
            arcGISCredentialStore: ArcGISCredentialStore(backend: backend),
            networkCredentialStore: NetworkCredentialStore(backend: backend),
            proxyCredentialStore: ProxyCredentialStore(backend: backend),
            transport: transport, logger: logger)
    }

    // MARK: - Plugins

    /// Registers a handler plugin after those already registered, and the credential types it makes.
    public func register(_ handler: any AuthenticationChallengeHandler) {
        for type in handler.arcGISCredentialTypes { registerArcGIS(type) }
        for type in handler.networkCredentialTypes { registerNetwork(type) }
        for type in handler.proxyCredentialTypes { registerProxy(type) }
        handlerList.withLock { $0.append(handler) }
    }

    private func registerArcGIS<C: ArcGISCredential>(_ type: C.Type) { arcGISCredentialStore.register(type) }
    private func registerNetwork<C: NetworkCredential>(_ type: C.Type) { networkCredentialStore.register(type) }
    private func registerProxy<C: ProxyAuthorizationCredential>(_ type: C.Type) { proxyCredentialStore.register(type) }

    /// The registered plugins, in order.
    public var handlers: [any AuthenticationChallengeHandler] { handlerList.withLock { $0 } }

    // MARK: - Requests

    /// Sends an ArcGIS request: attaches the credential of the URL's server context, answers
    /// challenges through the plugins, retries once, follows redirects without carrying a
    /// credential to another context, and checks the answer for ArcGIS errors.
    public func send(_ request: ArcGISRequest) async throws -> ArcGISResponse {
        try await send(request, presetting: nil)
    }

    /// ``send(_:)`` with a network credential that is being registered (see ``signIn(with:verifying:)``).
    private func send(
        _ request: ArcGISRequest, presetting preset: ProvisionalNetworkCredential?
    ) async throws -> ArcGISResponse {
        var url = request.url
        var parameters = request.parameters
        if request.expectsJSON, !parameters.contains(where: { $0.0 == "f" }) { parameters.append(("f", "json")) }
        var method = request.method
        var redirects = 0
        var answeredArcGISChallenge = false
        var answeredNetwork = Set<String>()
        // Network credentials a plugin just gave: used for this request and stored only once the
        // server accepts them (a refused password or certificate is never stored).
        var provisional: [ProvisionalNetworkCredential] = []
        if let preset {
            // The server's refusal of a credential being registered is final, not a new challenge.
            provisional.append(preset)
            for category in preset.categories {
                answeredNetwork.insert("\(preset.credential.host.url) \(category.rawValue)")
            }
        }
        var answeredProxy = Set<String>()
        _ = try ServerContext.host(of: url)
        try Self.refuseDotSegments(url)

        while true {
            let host = try ServerContext.host(of: url)
            // While a sign-in for this server is under way, requests wait for its credential
            // instead of going out without one only to be challenged again.
            if let pending = pendingArcGISChallenge(for: url) { _ = try? await pending.value }
            let gate = requestGate(for: host)
            await gate.acquire()
            let credential: (any ArcGISCredential)?
            let http: HTTPRequest
            var options = TransportOptions()
            do {
                credential = try await credentialForUse(url)
                if credential == nil, pendingArcGISChallenge(for: url) != nil {
                    gate.release()
                    continue
                }
                for network in try await networkCredentialStore.credentials(for: host) { network.apply(to: &options) }
                for fresh in provisional where fresh.credential.host == host { fresh.credential.apply(to: &options) }
                http = makeHTTPRequest(
                    url: url, parameters: parameters, method: method, placement: request.tokenPlacement,
                    credential: credential)
            } catch {
                gate.release()
                throw error
            }
            logger.debug(
                "request",
                metadata: [
                    "method": "\(http.method.rawValue)", "url": "\(URLRedaction.redact(url.absoluteString))",
                    "credential": "\(credential.map { type(of: $0).kind } ?? "none")",
                ])

            let sent: Result<HTTPResponse, any Error>
            do { sent = .success(try await requestTransport.send(http, options: options)) } catch {
                sent = .failure(error)
            }
            gate.release()
            let response: HTTPResponse
            // A TLS-level demand (a certificate that does not verify, a client certificate wanted in
            // the handshake) or a web server's HTTP answer that it wants a client certificate.
            var networkDemand: (kind: NetworkAuthenticationChallenge.Kind, error: PortalAuthError)?
            switch sent {
            case .success(let answer):
                response = answer
                provisional = try await commitAccepted(provisional, by: answer)
                if answer.demandsClientCertificate {
                    networkDemand = (
                        .clientCertificate,
                        PortalAuthError(
                            .authenticationRequired,
                            "\(host.host):\(host.port) requires a client certificate (HTTP \(answer.status)): sign in with portal-auth login --url \(host.url) --p12 FILE --password-stdin",
                            cause: .httpStatus(answer.status))
                    )
                }
            case .failure(let challengeError as TransportChallengeError):
                switch challengeError.challenge {
                case .serverTrust(_, _, let reason, _):
                    networkDemand = (.serverTrust(reason: reason), challengeError.error)
                case .clientCertificate: networkDemand = (.clientCertificate, challengeError.error)
                }
                response = HTTPResponse(status: 0, headers: [], body: [], url: url)
            case .failure(let error):
                throw error
            }
            if let (kind, error) = networkDemand {
                let key = "\(host.url) \(kind.category.rawValue)"
                guard !answeredNetwork.contains(key) else {
                    forgetNetworkAnswers(provisional.filter { $0.categories.contains(kind.category) })
                    if case .clientCertificate = kind {
                        throw PortalAuthError(
                            .authenticationFailed,
                            "\(host.host):\(host.port) refused the client certificate it was just given: the certificate is not for this server or not from a CA it trusts; nothing was stored",
                            cause: error.cause)
                    }
                    throw error
                }
                let previous = Self.contributor(
                    of: kind,
                    among: try await networkCredentialStore.credentials(for: host) + provisional.map(\.credential))
                let challenge = NetworkAuthenticationChallenge(
                    requestURL: url, host: host, kind: kind, message: error.message, previousCredential: previous)
                provisional.append(
                    try await resolveNetworkChallenge(challenge, unanswered: error, used: provisional, sent: options))
                answeredNetwork.insert(key)
                continue
            }

            // An identity-aware proxy in front of the host wants sign-in.
            if let challenge = try await proxyChallenge(url: url, response: response) {
                let key = "\(host.url) proxy"
                let sent = try await proxyCredentialStore.credential(for: url)
                if answeredProxy.contains(key) {
                    throw PortalAuthError(
                        .authenticationFailed,
                        "the identity-aware proxy in front of \(host.host):\(host.port) refused the token it was just given (HTTP \(response.status)): check hosts_behind_proxy and the app registration, then sign in again",
                        remedy: .signIn(sent?.howToSignIn ?? .identityAwareProxy()), cause: .httpStatus(response.status)
                    )
                }
                try await resolveProxyChallenge(challenge, sent: sent)
                answeredProxy.insert(key)
                continue
            }

            // Redirects: followed here, so the credential is chosen again for the new URL.
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location") {
                redirects += 1
                guard redirects <= 10, let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw PortalAuthError(
                        .httpError,
                        "\(ServerContext.describe(url)) redirected too often or to an invalid location: check the URL",
                        cause: .httpStatus(response.status))
                }
                logger.debug(
                    "redirect",
                    metadata: [
                        "from": "\(URLRedaction.redact(url.absoluteString))",
                        "to": "\(URLRedaction.redact(next.absoluteString))",
                    ])
                try Self.refuseDotSegments(next)
                let sameContext =
                    credential.map { $0.serverContext.contains(next) } ?? ((try? ServerContext.host(of: next)) == host)
                if response.status != 307 && response.status != 308 {
                    // The Location is the whole new request: parameters are not sent again.
                    method = .get
                    let query = next.query(percentEncoded: true) ?? ""
                    let hasFormat = query.split(separator: "&").contains { $0.lowercased().hasPrefix("f=") }
                    parameters = request.expectsJSON && !hasFormat ? [("f", "json")] : []
                } else if !sameContext {
                    throw PortalAuthError(
                        .httpError,
                        "\(ServerContext.describe(url)) redirected a request with its parameters to \(ServerContext.describe(next)), another server: refusing to resend them there; use the new URL directly if you trust it",
                        cause: .httpStatus(response.status))
                }
                url = next
                continue
            }

            if response.status == 401,
                let offered = HTTPAuthenticationHeader.parse(response.headers(named: "WWW-Authenticate"))
            {
                let key = "\(host.url) \(NetworkCredentialCategory.httpAuthentication.rawValue)"
                if answeredNetwork.contains(key) {
                    forgetNetworkAnswers(provisional.filter { $0.categories.contains(.httpAuthentication) })
                    throw PortalAuthError(
                        .authenticationFailed,
                        "\(host.host):\(host.port) refused the username and password (HTTP 401 again right after they were given): the password or user name is wrong; nothing was stored",
                        cause: .httpStatus(401))
                }
                let kind = NetworkAuthenticationChallenge.Kind.httpAuthentication(
                    schemes: offered.schemes, realm: offered.realm)
                let previous = Self.contributor(
                    of: kind, among: try await networkCredentialStore.credentials(for: host))
                let challenge = NetworkAuthenticationChallenge(
                    requestURL: url, host: host, kind: kind,
                    message: "\(host.host):\(host.port) asks for HTTP \(offered.description) authentication",
                    previousCredential: previous)
                provisional.append(
                    try await resolveNetworkChallenge(
                        challenge,
                        unanswered: PortalAuthError(
                            .authenticationRequired,
                            "\(host.host):\(host.port) asks for HTTP \(offered.description) authentication: run portal-auth login --url \(URLRedaction.redact(url.absoluteString)) --username USER --password-stdin",
                            cause: .httpStatus(401)), used: provisional, sent: options))
                answeredNetwork.insert(key)
                continue
            }

            if let error = ArcGISError.parse(response.body) {
                let isChallenge =
                    error.code == 499 || error.code == 498
                    || (error.code == 403 && error.messageCode == "GWM_0003" && credential == nil)
                guard isChallenge else {
                    throw PortalAuthError(
                        .arcGISError,
                        "\(ServerContext.describe(url)) answered ArcGIS error \(error.code): \(error.message)\(error.details.isEmpty ? "" : " (" + error.details.joined(separator: "; ") + ")")",
                        cause: error.cause)
                }
                if answeredArcGISChallenge {
                    throw PortalAuthError(
                        .invalidToken,
                        "\(ServerContext.describe(url)) refused the credential it was just given (\(error.code) \(error.message)): the token is not valid for this server; check the server's federation and sign in again with portal-auth login",
                        cause: error.cause)
                }
                logger.debug(
                    "ArcGIS challenge",
                    metadata: ["code": "\(error.code)", "url": "\(URLRedaction.redact(url.absoluteString))"])
                answeredArcGISChallenge = true
                guard try await resolveArcGISChallenge(url: url, error: error, sent: credential) != nil else {
                    throw PortalAuthError(
                        .authenticationRequired,
                        "\(ServerContext.describe(url)) requires sign-in (\(error.code) \(error.message)) and no credential was given",
                        cause: error.cause)
                }
                continue
            }

            guard (200..<300).contains(response.status) else {
                throw PortalAuthError(
                    .httpError,
                    "\(ServerContext.describe(url)) answered HTTP \(response.status)\(response.status >= 500 ? ": the server failed; try again later" : ": check the URL")",
                    cause: .httpStatus(response.status))
            }
            let json =
                request.expectsJSON ? try JSONValue.parse(response.body, source: ServerContext.describe(url)) : nil
            return ArcGISResponse(http: response, json: json)
        }
    }

    /// How many requests to one host the manager has in the transport at once (twice libcurl's
    /// default connections per host, so connections never idle): the rest wait here, where they
    /// still see a credential that arrives meanwhile.
    static let requestsInFlightPerHost = 16
    private let gates = Mutex<[String: AsyncGate]>([:])

    func requestGate(for host: ServerContext) -> AsyncGate {
        gates.withLock { gates in
            if let gate = gates[host.url] { return gate }
            let gate = AsyncGate(limit: Self.requestsInFlightPerHost)
            gates[host.url] = gate
            return gate
        }
    }

    /// The ArcGIS challenge being resolved for `url`'s server (the key ``resolveArcGISChallenge(url:error:sent:interactive:)`` uses).
    func pendingArcGISChallenge(for url: URL) -> Task<(any ArcGISCredential)?, any Error>? {
        guard !Self.insideChallenge,
            let key = (ServerContext.arcGISServerRoot(of: url) ?? (try? ServerContext(url: url)))?.url
        else { return nil }
        return arcGISFlights.running(key)
    }

    func makeHTTPRequest(
        url: URL, parameters: [(String, String)], method: ArcGISRequest.Method, placement: ArcGISRequest.TokenPlacement,
        credential: (any ArcGISCredential)?
    ) -> HTTPRequest {
        var parameters = parameters
        if let credential, placement == .parameter { parameters.append(("token", credential.tokenInfo.accessToken)) }
        let query = FormEncoding.encode(parameters)
        let base = url.absoluteString
        let getURL = query.isEmpty ? base : base + (base.contains("?") ? "&" : "?") + query
        var request: HTTPRequest
        if method == .post || (method == .automatic && getURL.utf8.count > ArcGISRequest.maximumGETLength),
            !query.isEmpty
        {
            request = HTTPRequest(url: url, method: .post, body: Array(query.utf8))
            request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        } else {
            request = HTTPRequest(url: URL(string: getURL) ?? url)
        }
        if let credential {
            if placement == .header {
                request.setHeader("X-Esri-Authorization", "Bearer " + credential.tokenInfo.accessToken)
            }
            if let referer = credential.referer { request.setHeader("Referer", referer) }
        }
        return request
    }

    // MARK: - Credentials for use

    /// The credential to attach to a request for `url`: the one of its server context, renewed
    /// when it is close to expiry. `nil` when there is none or it expired and cannot be renewed.
    func credentialForUse(_ url: URL) async throws -> (any ArcGISCredential)? {
        guard let credential = try await arcGISCredentialStore.credential(for: url) else { return nil }
        if credential.tokenInfo.isSSLRequired, url.scheme?.lowercased() != "https" {
            throw PortalAuthError(
                .insecureTransport,
                "refusing to send the token of \(credential.serverContext) over plain http to \(ServerContext.describe(url)): the token requires https; use the https URL"
            )
        }
        guard credential.tokenInfo.expires(within: credential.renewalLeeway) else { return credential }
        return try await renew(credential)
    }

    /// Renews a credential close to expiry, once across tasks and processes. Returns the renewed
    /// credential, the old one while it has not yet expired, or `nil` once it has.
    func renew(_ credential: any ArcGISCredential) async throws -> (any ArcGISCredential)? {
        let context = credential.serverContext
        return try await renewalFlights.run(context.url) { [self] in
            let work: () async throws -> (any ArcGISCredential)? = { [self] in
                // Another task or process may have renewed it while we waited for the lock: a
                // different, unexpired token is that renewal (even when its lifetime is shorter
                // than the leeway, renewing again would only repeat it).
                let stored = try await arcGISCredentialStore.credential(for: context, reload: usesCrossProcessLocks)
                if let stored,
                    !stored.tokenInfo.expires(within: stored.renewalLeeway)
                        || (stored.tokenInfo.accessToken != credential.tokenInfo.accessToken
                            && !stored.tokenInfo.expires(within: 30))
                {
                    return stored
                }
                // Signed out meanwhile (another process ran logout): do not bring it back.
                if usesCrossProcessLocks, stored == nil { return nil }
                logger.debug(
                    "renewing credential", metadata: ["server": "\(context)", "kind": "\(type(of: credential).kind)"])
                let renewed: (any ArcGISCredential)?
                do {
                    renewed = try await credential.renewed(using: services)
                } catch let error as PortalAuthError
                    where error.code != .authenticationFailed && !credential.tokenInfo.isExpired()
                {
                    // A passing failure at the token service: the current token is still good.
                    logger.warning(
                        "renewal failed; using the current token until it expires",
                        metadata: ["server": "\(context)", "error": "\(error.code)"])
                    return credential
                }
                if let renewed {
                    try await arcGISCredentialStore.add(any: renewed)
                    return renewed
                }
                if let portal = credential.derivedFrom,
                    let portalCredential = try await credentialForUse(URL(string: portal.url)!)
                {
                    return try await federate(server: context, portal: portalCredential, tokenServiceURL: nil)
                }
                return credential.tokenInfo.isExpired() ? nil : credential
            }
            if usesCrossProcessLocks { return try await CrossProcessLock.withLock("renew " + context.url, work) }
            return try await work()
        }
    }

    /// A valid credential for `url` without sending the request itself, as `portal-auth token`
    /// needs it: the stored one (renewed when needed), or a federated server token obtained from
    /// the owning portal's credential. With `interactive`, missing or expired credentials are
    /// asked of the plugins; without, they are errors naming the command to run.
    public func credential(for url: URL, interactive: Bool) async throws -> any ArcGISCredential {
        if let stored = try await arcGISCredentialStore.credential(for: url) {
            if !stored.tokenInfo.expires(within: stored.renewalLeeway) { return stored }
            if let usable = try await renew(stored) { return usable }
            guard interactive else {
                throw PortalAuthError(
                    .credentialExpired,
                    "the credential for \(stored.serverContext) expired\(stored.tokenInfo.expirationDate.map { " at " + $0.formatted(.iso8601) } ?? "")",
                    remedy: Self.signInRemedy(for: stored.serverContext, credential: stored)
                )
            }
        }
        let synthetic = ArcGISError(code: 499, message: "Token Required", messageCode: "GWM_0003")
        if !interactive, ServerContext.arcGISServerRoot(of: url) == nil {
            let context = try ServerContext(url: url)
            throw PortalAuthError(
                .noCredential, "no credential for \(context)", remedy: Self.signInRemedy(for: context, credential: nil))
        }
        guard
            let credential = try await resolveArcGISChallenge(
                url: url, error: synthetic, sent: nil, interactive: interactive)
        else {
            let context = try ServerContext(url: url)
            throw PortalAuthError(
                .noCredential, "no credential for \(context)", remedy: Self.signInRemedy(for: context, credential: nil))
        }
        return credential
    }

    /// The stored credential for `url` when ``credential(for:interactive:)`` would return it as
    /// it is: found in the store and not within its ``ArcGISCredential/renewalLeeway`` of expiry.
    /// `nil` otherwise (none stored, or it needs renewal, federation or a sign-in: leave that to
    /// ``credential(for:interactive:)``).
    ///
    /// It reads the backend on the calling thread, blocking it, without the concurrency runtime:
    /// the fast path of `portal-auth token`, which prints a cached token before anything else starts.
    public func readyStoredCredential(for url: URL) throws -> (any ArcGISCredential)? {
        guard let stored = try arcGISCredentialStore.readCredential(for: url),
            !stored.tokenInfo.expires(within: stored.renewalLeeway)
        else { return nil }
        return stored
    }

    static func signInRemedy(for context: ServerContext, credential: (any ArcGISCredential)?) -> PortalAuthError.Remedy
    {
        .signIn(credential?.howToSignIn ?? .token(context))
    }

    // MARK: - Challenges

    /// Obtains a credential for an ArcGIS challenge on `url`, once per server context however many
    /// requests are challenged at the same time.
    func resolveArcGISChallenge(
        url: URL, error: ArcGISError, sent: (any ArcGISCredential)?, interactive: Bool = true
    ) async throws -> (any ArcGISCredential)? {
        let serverRoot = ServerContext.arcGISServerRoot(of: url)
        let key = try (serverRoot ?? ServerContext(url: url)).url
        return try await arcGISFlights.run(key) { [self] in
            try await Self.$insideChallenge.withValue(true) {
                // A credential stored since this request was sent answers it without asking anyone.
                if let current = try await arcGISCredentialStore.credential(for: url),
                    current.tokenInfo.accessToken != sent?.tokenInfo.accessToken, !current.tokenInfo.isExpired()
                {
                    return current
                }
                // A refused credential that can renew itself silently does so.
                if let sent, let renewed = try await sent.renewed(using: services) {
                    try await arcGISCredentialStore.add(any: renewed)
                    return renewed
                }
                if let serverRoot {
                    return try await resolveServerChallenge(
                        url: url, root: serverRoot, error: error, sent: sent, interactive: interactive)
                }
                let context = try ServerContext(url: url)
                let stored = try await arcGISCredentialStore.credential(for: url)
                guard interactive else {
                    throw PortalAuthError(
                        .noCredential,
                        "no credential for \(context)", remedy: Self.signInRemedy(for: context, credential: stored))
                }
                let challenge = ArcGISAuthenticationChallenge(
                    requestURL: url, serverContext: stored?.serverContext ?? context, error: error,
                    previousCredential: sent ?? stored)
                return try await routeArcGIS(challenge)
            }
        }
    }

    /// True inside a challenge's resolution: a plugin's own requests through the manager must not
    /// wait for the very challenge they are part of.
    @TaskLocal static var insideChallenge = false

    /// A challenge from an ArcGIS Server: federated servers get a token from their portal.
    private func resolveServerChallenge(
        url: URL, root: ServerContext, error: ArcGISError, sent: (any ArcGISCredential)?, interactive: Bool
    ) async throws -> (any ArcGISCredential)? {
        let info = try await services.getJSON(URL(string: root.url + "/rest/info")!)
        let tokenServiceURL = info["authInfo"]?["tokenServicesUrl"]?.stringValue.flatMap(URL.init(string:))
        if let owning = info["owningSystemUrl"]?.stringValue, let portalURL = URL(string: owning),
            let portal = try? ServerContext(url: portalURL)
        {
            logger.debug("federated server", metadata: ["server": "\(root)", "portal": "\(portal)"])
            var portalCredential = try await credentialForUse(portalURL)
            if portalCredential == nil {
                guard interactive else {
                    throw PortalAuthError(
                        .noCredential,
                        "\(root) is federated with \(portal), which has no credential",
                        remedy: Self.signInRemedy(for: portal, credential: nil)
                    )
                }
                let challenge = ArcGISAuthenticationChallenge(
                    requestURL: url, serverContext: portal, error: error,
                    previousCredential: try await arcGISCredentialStore.credential(for: portal),
                    tokenServiceURL: tokenServiceURL)
                portalCredential = try await routeArcGIS(challenge)
            }
            guard let portalCredential else { return nil }
            return try await federate(server: root, portal: portalCredential, tokenServiceURL: tokenServiceURL)
        }
        guard interactive else {
            throw PortalAuthError(
                .noCredential,
                "no credential for \(root) (a server not federated with a portal)",
                remedy: Self.signInRemedy(for: root, credential: nil)
            )
        }
        let challenge = ArcGISAuthenticationChallenge(
            requestURL: url, serverContext: root, error: error,
            previousCredential: sent, tokenServiceURL: tokenServiceURL)
        return try await routeArcGIS(challenge)
    }

    /// Gets a server token from the owning portal with the portal token and caches it.
    func federate(
        server: ServerContext, portal: any ArcGISCredential, tokenServiceURL: URL?
    ) async throws -> any ArcGISCredential {
        let credential: FederatedTokenCredential
        if server.host.hasSuffix(".arcgis.com"), ServerContext.isArcGISOnline(portal.serverContext.host) {
            // ArcGIS Online hosted services accept the portal token itself.
            credential = FederatedTokenCredential(
                serverContext: server, portal: portal.serverContext, tokenInfo: portal.tokenInfo,
                username: portal.username, referer: portal.referer)
        } else {
            // The challenging server names the token service, but the portal token only ever goes
            // to the portal itself: a service URL outside the portal's context is ignored.
            let ownService = URL(string: portal.serverContext.url + "/sharing/rest/generateToken")!
            var serviceURL = ownService
            if let tokenServiceURL, tokenServiceURL.scheme?.lowercased() == "https",
                portal.serverContext.contains(tokenServiceURL)
            {
                serviceURL = tokenServiceURL
            } else if let tokenServiceURL {
                logger.warning(
                    "ignoring a token service outside the portal",
                    metadata: [
                        "server": "\(server)", "named": "\(ServerContext.describe(tokenServiceURL))",
                        "portal": "\(portal.serverContext)",
                    ])
            }
            var parameters = [("token", portal.tokenInfo.accessToken), ("serverUrl", server.url)]
            var headers: [(name: String, value: String)] = []
            if let referer = portal.referer {
                parameters += [("client", "referer"), ("referer", referer)]
                headers.append(("Referer", referer))
            }
            parameters.append(("expiration", "60"))
            let json: JSONValue
            do {
                json = try await services.postForm(serviceURL, parameters, headers: headers)
            } catch let error as PortalAuthError where error.code == .arcGISError {
                throw PortalAuthError(
                    .notFederated, "\(portal.serverContext) would not issue a token for \(server): \(error.message)",
                    cause: error.cause)
            }
            guard let token = json["token"]?.stringValue, !token.isEmpty else {
                throw PortalAuthError(
                    .invalidResponse,
                    "\(ServerContext.describe(serviceURL)) answered without a token: check that \(server) is federated with \(portal.serverContext)"
                )
            }
            credential = FederatedTokenCredential(
                serverContext: server, portal: portal.serverContext,
                tokenInfo: TokenInfo(
                    accessToken: token,
                    expirationDate: json["expires"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) },
                    isSSLRequired: json["ssl"]?.boolValue ?? false),
                username: portal.username, referer: portal.referer)
        }
        try await arcGISCredentialStore.add(credential)
        return credential
    }

    /// Routes an ArcGIS challenge to the first plugin that accepts it.
    private func routeArcGIS(_ challenge: ArcGISAuthenticationChallenge) async throws -> (any ArcGISCredential)? {
        switch try await route(.arcGIS(challenge)) {
        case .arcGIS(let credential)?: return credential
        case .network?, .proxy?:
            throw PortalAuthError(.internalError, "a plugin answered an ArcGIS challenge with a non-ArcGIS credential")
        case nil:
            if handlers.contains(where: { $0.canHandle(.arcGIS(challenge)) }) { return nil }
            throw PortalAuthError(
                .authenticationRequired,
                "\(challenge.serverContext) requires sign-in (\(challenge.error.code) \(challenge.error.message)) and no plugin can answer",
                remedy: Self.signInRemedy(for: challenge.serverContext, credential: challenge.previousCredential),
                cause: challenge.error.cause)
        }
    }

    /// Asks the plugins (one flight per host and kind) and returns the credential they give, not
    /// yet stored: the request stores it once the server accepts it.
    ///
    /// A request challenged just after another one's flight ended gets that flight's answer, not
    /// yet accepted by the server, or the credential another request stored since: anything but
    /// what it `sent` (which was refused), so concurrent requests ask once and a refused or
    /// changed credential (a pinned key that no longer matches) goes to the plugins.
    private func resolveNetworkChallenge(
        _ challenge: NetworkAuthenticationChallenge, unanswered: PortalAuthError,
        used: [ProvisionalNetworkCredential], sent: TransportOptions
    ) async throws -> ProvisionalNetworkCredential {
        let category = challenge.kind.category
        let refused = sent.only(category)
        let recentKey = "\(challenge.host.url) \(category.rawValue)"
        if let recent = recentNetworkAnswers.withLock({ $0[recentKey] }), !used.contains(where: { $0 === recent }),
            recent.options.only(category) != refused
        {
            return recent
        }
        let key = "\(challenge.host.url) \(challenge.kind)"
        let answer = try await networkFlights.run(key) { [self] () -> ProvisionalNetworkCredential? in
            // Stored since this request was sent (by another task, or another process).
            if let stored = Self.contributor(
                of: challenge.kind,
                among: try await networkCredentialStore.credentials(for: challenge.host, reload: true))
            {
                let candidate = ProvisionalNetworkCredential(stored, alreadyStored: true)
                if candidate.options.only(category) != refused { return candidate }
            }
            guard handlers.contains(where: { $0.canHandle(.network(challenge)) }) else { return nil }
            guard case .network(let credential)? = try await route(.network(challenge)) else { return nil }
            let fresh = ProvisionalNetworkCredential(credential)
            recentNetworkAnswers.withLock { $0[recentKey] = fresh }
            return fresh
        }
        guard let answer else { throw unanswered }
        return answer
    }

    /// Stores the fresh credentials `response` shows the server accepted and returns the others:
    /// a pinned key or a client certificate once the TLS handshake worked (and no HTTP demand for
    /// a certificate came back), a password once the answer is neither a 401 nor another error.
    private func commitAccepted(
        _ provisional: [ProvisionalNetworkCredential], by response: HTTPResponse
    ) async throws -> [ProvisionalNetworkCredential] {
        guard !provisional.isEmpty else { return provisional }
        var refused = Set<NetworkCredentialCategory>()
        if response.httpAuthenticationOffer != nil { refused.insert(.httpAuthentication) }
        if response.demandsClientCertificate { refused.insert(.clientCertificate) }
        var pending: [ProvisionalNetworkCredential] = []
        for fresh in provisional {
            let acceptedInHandshake = fresh.categories.isSubset(of: [.serverTrust, .clientCertificate])
            guard fresh.categories.isDisjoint(with: refused), acceptedInHandshake || response.status < 400 else {
                pending.append(fresh)
                continue
            }
            try await fresh.commit(to: networkCredentialStore)
            forgetNetworkAnswers([fresh])
        }
        return pending
    }

    /// Forgets answers a server refused (so the next challenge asks again) or that are stored now.
    private func forgetNetworkAnswers(_ refused: [ProvisionalNetworkCredential]) {
        recentNetworkAnswers.withLock { answers in
            answers = answers.filter { _, answer in !refused.contains { $0 === answer } }
        }
    }

    /// The credential among `credentials` whose options answer challenges of `kind` (the one that
    /// was used and refused), if any.
    static func contributor(
        of kind: NetworkAuthenticationChallenge.Kind, among credentials: [any NetworkCredential]
    ) -> (any NetworkCredential)? {
        credentials.last { NetworkCredentialCategory.of($0).contains(kind.category) }
    }

    /// A network credential's registration with the server: sends `url` with `credential` and
    /// stores the credential only when the server accepts it (a 401 again, a refused certificate
    /// or a key that does not match throws, and nothing is stored). Returns the server's answer.
    @discardableResult
    public func signIn(with credential: any NetworkCredential, verifying url: URL) async throws -> ArcGISResponse {
        let host = try ServerContext.host(of: url)
        guard credential.host == host else {
            throw PortalAuthError(
                .invalidArgument,
                "the credential is for \(credential.host), not \(host): give a URL on \(credential.host)")
        }
        let fresh = ProvisionalNetworkCredential(credential)
        // A 4xx or 5xx answer throws: the credential is stored only with a successful answer.
        let response = try await send(ArcGISRequest(url: url, expectsJSON: false), presetting: fresh)
        try await fresh.commit(to: networkCredentialStore)
        return response
    }

    /// Asks the first accepting plugin; stores what it returns.
    private func route(_ challenge: AuthenticationChallenge) async throws -> Credential? {
        guard let handler = handlers.first(where: { $0.canHandle(challenge) }) else { return nil }
        switch try await handler.handle(challenge, services: services) {
        case .continueWithCredential(let credential):
            switch credential {
            case .arcGIS(let c): try await arcGISCredentialStore.add(any: c)
            case .network: break  // stored by the request once the server accepts it
            case .proxy(let c): try await proxyCredentialStore.add(any: c)
            }
            return credential
        case .continueWithoutCredential:
            return nil
        case .cancel:
            throw PortalAuthError(
                .cancelled, "sign-in to \(ServerContext.describe(challenge.requestURL)) was cancelled")
        }
    }

    /// Refuses URLs with `.` or `..` path segments: the credential is chosen by path, and the
    /// server (or libcurl) would resolve them to another path, maybe outside the credential's context.
    static func refuseDotSegments(_ url: URL) throws {
        let segments = url.path(percentEncoded: false).split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0 == "." || $0 == ".." }) {
            throw PortalAuthError(
                .invalidURL, "\(ServerContext.describe(url)) has a . or .. path segment: give the URL without them")
        }
    }

    // MARK: - Identity-aware proxies

    /// A proxy's sign-in demand: 401 with `WWW-Authenticate: Bearer` from a host a proxy credential
    /// or plugin covers, or a redirect that a plugin recognizes as its identity provider's sign-in.
    func proxyChallenge(url: URL, response: HTTPResponse) async throws -> ProxyAuthenticationChallenge? {
        let isRedirect = [302, 303, 307].contains(response.status)
        let isBearer401 =
            response.status == 401
            && response.headers(named: "WWW-Authenticate").contains { $0.lowercased().hasPrefix("bearer") }
        guard isRedirect || isBearer401 else { return nil }
        let location = response.header("Location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        let challenge = ProxyAuthenticationChallenge(requestURL: url, status: response.status, location: location)
        if isBearer401 {
            // Only where a proxy credential or plugin covers the host: elsewhere a Bearer 401 is
            // the server's own business (HTTP authentication handles the other schemes).
            let covered =
                try await proxyCredentialStore.credential(for: url) != nil
                || handlers.contains { $0.canHandle(.proxy(challenge)) }
            return covered ? challenge : nil
        }
        // An API call sent to another origin's authorization page is a proxy's sign-in demand.
        if ProxyAuthenticationChallenge.signInRedirect(from: url, response: response) != nil { return challenge }
        return handlers.contains { $0.canHandle(.proxy(challenge)) } ? challenge : nil
    }

    private func resolveProxyChallenge(
        _ challenge: ProxyAuthenticationChallenge, sent: (any ProxyAuthorizationCredential)?
    ) async throws {
        let host = try ServerContext.host(of: challenge.requestURL)
        // One flight per proxy sign-in: hosts behind the same proxy share it.
        let key = sent?.proxyIdentifier ?? host.url
        let obtained = try await proxyFlights.run(key) { [self] () -> (any ProxyAuthorizationCredential)? in
            // Stored since the request was sent (another task or process signed in or renewed).
            if let current = try await proxyCredentialStore.credential(
                for: challenge.requestURL, reload: proxies.usesCrossProcessLocks),
                current.tokenInfo.accessToken != sent?.tokenInfo.accessToken, !current.tokenInfo.isExpired()
            {
                return current
            }
            // The refused token is renewed under the same single-flight and lock as any renewal.
            if let sent, let renewed = try await proxies.renew(sent, refused: true),
                renewed.tokenInfo.accessToken != sent.tokenInfo.accessToken
            {
                return renewed
            }
            var routed = challenge
            routed.previousCredential = sent
            guard handlers.contains(where: { $0.canHandle(.proxy(routed)) }) else { return nil }
            guard case .proxy(let credential)? = try await route(.proxy(routed)) else { return nil }
            return credential
        }
        if obtained == nil {
            throw PortalAuthError(
                .authenticationRequired,
                "\(host.host):\(host.port) is behind an identity-aware proxy that wants sign-in (HTTP \(challenge.status)\(challenge.location.map { " to " + ServerContext.describe($0) } ?? ""))",
                remedy: .signIn(sent?.howToSignIn ?? .identityAwareProxy()), cause: .httpStatus(challenge.status))
        }
    }

    /// The proxy credential that requests to `url` carry (renewed when close to expiry), if the
    /// URL's host is behind an identity-aware proxy with a stored credential.
    public func proxyCredential(for url: URL) async throws -> (any ProxyAuthorizationCredential)? {
        try await proxies.credentialForUse(url)
    }

    /// Signs out of identity-aware proxies: shows each credential's ``ProxyAuthorizationCredential/logoutURL``
    /// through `userAgent` (the browser) and removes the credential. With `url`, only the
    /// credential for that URL's host. Returns the credentials removed.
    @discardableResult
    public func invalidateProxyCredentials(
        for url: URL? = nil, userAgent: (any AuthorizationUserAgent)?
    ) async throws -> [any ProxyAuthorizationCredential] {
        var removed: [any ProxyAuthorizationCredential] = []
        for credential in try await proxyCredentialStore.allCredentials(reload: true) {
            if let url, !credential.canBeUsed(for: url) { continue }
            // Removed first: a sign-out page that cannot be shown leaves nothing behind.
            try await proxyCredentialStore.remove(credential.proxyIdentifier)
            removed.append(credential)
            if let logout = credential.logoutURL, let userAgent {
                try await userAgent.present(logout, redirectURI: "")
            }
        }
        return removed
    }

    // MARK: - Sign-out

    /// Removes every portal-auth credential from the three stores (all kinds, all servers),
    /// proxy (IAP) credentials included, without opening their sign-out pages (see
    /// ``invalidateProxyCredentials(for:userAgent:)``).
    @discardableResult
    public func clearCredentialStores() async throws -> Int {
        let arcGIS = try await arcGISCredentialStore.removeAll()
        let network = try await networkCredentialStore.removeAll()
        let proxy = try await proxyCredentialStore.removeAll()
        return arcGIS + network + proxy
    }

    /// Revokes the tokens of every stored credential that can be revoked (OAuth user credentials)
    /// at its portal, and reports the outcome of each. Proxy (IAP) credentials are reported as
    /// ``RevocationReport/Outcome/notRevocable(_:)``: an identity provider such as Entra ID
    /// offers clients no revocation endpoint, so ``invalidateProxyCredentials(for:userAgent:)``
    /// (its sign-out page) is the way to end them. Credentials stay in the store; call
    /// ``clearCredentialStores()`` to remove them.
    public func revokeOAuthTokens(for context: ServerContext? = nil) async throws -> [RevocationReport] {
        var reports: [RevocationReport] = []
        for credential in try await arcGISCredentialStore.allCredentials() {
            guard let revocable = credential as? any RevocableCredential else { continue }
            if let context, revocable.serverContext != context { continue }
            do {
                try await revocable.revoke(using: services)
                reports.append(
                    RevocationReport(
                        serverContext: revocable.serverContext, username: revocable.username, outcome: .revoked))
            } catch let error as PortalAuthError {
                reports.append(
                    RevocationReport(
                        serverContext: revocable.serverContext, username: revocable.username,
                        outcome: .failed(error.message)))
            }
        }
        for proxy in try await proxyCredentialStore.allCredentials(reload: true) {
            if let context, let url = URL(string: context.url), !proxy.canBeUsed(for: url) { continue }
            guard let identifier = URL(string: proxy.proxyIdentifier),
                let identityProvider = try? ServerContext.host(of: identifier)
            else { continue }
            let signOut = proxy.logoutURL.map { ": sign out at \(URLRedaction.redact($0.absoluteString))" } ?? ""
            let expiry = proxy.tokenInfo.expirationDate.map { "; its token expires \($0.formatted(.iso8601))" } ?? ""
            reports.append(
                RevocationReport(
                    serverContext: identityProvider, username: proxy.username,
                    outcome: .notRevocable("the identity provider offers no revocation\(signOut)\(expiry)")))
        }
        return reports
    }
}

/// What ``AuthenticationManager/revokeOAuthTokens(for:)`` did for one credential.
public struct RevocationReport: Sendable, Equatable {
    /// The outcome.
    public enum Outcome: Sendable, Equatable {
        /// The portal revoked the tokens.
        case revoked
        /// The revocation failed, and why.
        case failed(String)
        /// The credential's tokens cannot be revoked by a client (an identity-aware proxy's
        /// Entra tokens), and what to do instead.
        case notRevocable(String)
    }
    /// The credential's server context.
    public var serverContext: ServerContext
    /// The credential's user.
    public var username: String?
    /// The outcome.
    public var outcome: Outcome

    /// Creates a report.
    public init(serverContext: ServerContext, username: String?, outcome: Outcome) {
        self.serverContext = serverContext
        self.username = username
        self.outcome = outcome
    }
}

extension HTTPResponse {
    /// The HTTP authentication schemes (Basic, Digest, NTLM, Negotiate) and realm a 401 offers
    /// in its `WWW-Authenticate` headers; `nil` for any other answer.
    public var httpAuthenticationOffer: (schemes: TransportOptions.HTTPAuthSchemes, realm: String?)? {
        guard status == 401, let offer = HTTPAuthenticationHeader.parse(headers(named: "WWW-Authenticate")) else {
            return nil
        }
        return (offer.schemes, offer.realm)
    }
}

/// The schemes and realm of `WWW-Authenticate` headers.
struct HTTPAuthenticationHeader: CustomStringConvertible {
    var schemes: TransportOptions.HTTPAuthSchemes
    var realm: String?
    var names: [String]

    static func parse(_ values: [String]) -> HTTPAuthenticationHeader? {
        var schemes: TransportOptions.HTTPAuthSchemes = []
        var realm: String?
        var names: [String] = []
        for value in values {
            let scheme = value.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            switch scheme {
            case "basic": schemes.insert(.basic); names.append("Basic")
            case "digest": schemes.insert(.digest); names.append("Digest")
            case "ntlm": schemes.insert(.ntlm); names.append("NTLM")
            case "negotiate": schemes.insert(.negotiate); names.append("Negotiate")
            default: continue
            }
            if realm == nil, let range = value.firstRange(of: "realm=\"") {
                let rest = value[range.upperBound...]
                realm = rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
            }
        }
        return schemes.isEmpty ? nil : HTTPAuthenticationHeader(schemes: schemes, realm: realm, names: names)
    }

    var description: String {
        names.joined(separator: "/") + (realm.map { " (realm \"\($0)\")" } ?? "")
    }
}

/// A network credential a plugin just gave (or a program registers), stored once, when a server
/// first accepts it.
final class ProvisionalNetworkCredential: Sendable {
    let credential: any NetworkCredential
    /// What it contributes to a request.
    let options: TransportOptions
    /// What it answers.
    let categories: Set<NetworkCredentialCategory>
    private let stored: Mutex<Bool>

    init(_ credential: any NetworkCredential, alreadyStored: Bool = false) {
        self.credential = credential
        var options = TransportOptions()
        credential.apply(to: &options)
        self.options = options
        self.categories = NetworkCredentialCategory.of(options)
        self.stored = Mutex(alreadyStored)
    }

    func commit(to store: NetworkCredentialStore) async throws {
        let first = stored.withLock { stored -> Bool in
            defer { stored = true }
            return !stored
        }
        if first { try await store.add(any: credential) }
    }
}

/// What a network credential answers: the three kinds of network challenge.
enum NetworkCredentialCategory: String, Sendable, Hashable {
    case httpAuthentication = "http-auth"
    case clientCertificate = "client-certificate"
    case serverTrust = "server-trust"

    /// The categories transport options answer.
    static func of(_ options: TransportOptions) -> Set<NetworkCredentialCategory> {
        var categories = Set<NetworkCredentialCategory>()
        if options.httpAuthentication != nil { categories.insert(.httpAuthentication) }
        if options.clientCertificate != nil { categories.insert(.clientCertificate) }
        if options.pinnedPublicKey != nil { categories.insert(.serverTrust) }
        return categories
    }

    /// The categories a credential answers.
    static func of(_ credential: any NetworkCredential) -> Set<NetworkCredentialCategory> {
        var options = TransportOptions()
        credential.apply(to: &options)
        return of(options)
    }
}

extension TransportOptions {
    /// Only the part that answers challenges of `category`.
    func only(_ category: NetworkCredentialCategory) -> TransportOptions {
        switch category {
        case .httpAuthentication: return TransportOptions(httpAuthentication: httpAuthentication)
        case .clientCertificate: return TransportOptions(clientCertificate: clientCertificate)
        case .serverTrust: return TransportOptions(pinnedPublicKey: pinnedPublicKey)
        }
    }
}

extension NetworkAuthenticationChallenge.Kind {
    /// What a credential must answer for this challenge.
    var category: NetworkCredentialCategory {
        switch self {
        case .httpAuthentication: return .httpAuthentication
        case .clientCertificate: return .clientCertificate
        case .serverTrust: return .serverTrust
        }
    }
}
