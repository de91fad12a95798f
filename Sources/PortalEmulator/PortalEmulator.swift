import Foundation
public import Logging
import NIOSSL

/// A local HTTPS server that behaves like an ArcGIS Enterprise portal (`/portal`), a federated
/// ArcGIS Server (`/server`) and a standalone ArcGIS Server (`/standalone`) on one port.
///
/// It makes a throwaway certificate authority at start-up and writes the CA certificate to
/// ``caCertificatePath`` so clients can verify the server. It is an independent implementation
/// of the server side of the protocol, for tests.
public final class PortalEmulator: Sendable {
    private let context: EmulatorContext
    private let https: Listener
    private let http: Listener?
    private let proxy: Listener?
    private let location: Listener?
    private let temporaryDirectory: String?

    /// The HTTPS port.
    public var port: Int { https.port }
    /// The plain-HTTP port, when a plain listener was asked for.
    public var httpPort: Int? { http?.port }
    /// "https://HOST:PORT" (127.0.0.1 unless another host was bound).
    public var baseURL: String { context.urls.baseURL }
    /// ``baseURL`` + "/portal"
    public var portalURL: String { context.urls.portalURL }
    /// ``baseURL`` + "/server": the server federated with the portal.
    public var serverURL: String { context.urls.serverURL }
    /// ``baseURL`` + "/standalone": a server with its own token service.
    public var standaloneServerURL: String { context.urls.standaloneServerURL }
    /// ``baseURL`` + "/claimant": an ArcGIS Server that names the portal as its owning system in
    /// `rest/info` although the portal neither federates nor lists it (as any host could). It
    /// accepts no token, and counts the ones it receives (``EmulatorCounters/tokensSentToClaimant``).
    public var claimantServerURL: String { context.urls.claimantServerURL }
    /// The application proxy's port, when it runs (``EmulatorConfiguration/proxyPort``).
    public var proxyPort: Int? { proxy?.port }
    /// "https://HOST:PROXYPORT": the portal and servers as seen through the emulated Microsoft
    /// Entra Application Proxy (every request needs an Entra bearer token), when it runs.
    public var proxyBaseURL: String? { context.urls.proxyBaseURL }
    /// The location services' port, when they run (``EmulatorConfiguration/locationServicesPort``).
    public var locationServicesPort: Int? { location?.port }
    /// "https://HOST:LOCATIONPORT": the location services, a host:port of their own as
    /// geocode-api.arcgis.com is in ArcGIS Online; `portals/self` lists them in `helperServices`.
    public var locationServicesBaseURL: String? { context.urls.locationServicesBaseURL }
    /// The geocoding service (`.../arcgis/rest/services/World/GeocodeServer`), when the location services run.
    public var geocodeServiceURL: String? {
        locationServicesBaseURL.map { $0 + LocationServicesRoutes.geocodePath }
    }
    /// The routing service (`.../arcgis/rest/services/World/Route/NAServer/Route_World`), when they run.
    public var routeServiceURL: String? { locationServicesBaseURL.map { $0 + LocationServicesRoutes.routePath } }
    /// The basemap styles service (`.../arcgis/rest/services/styles/v2/styles`), when they run.
    public var basemapStylesURL: String? { locationServicesBaseURL.map { $0 + LocationServicesRoutes.stylesPath } }
    /// The emulated Entra ID's v2.0 endpoints: `{entraBaseURL}/authorize`, `/token`, `/logout`.
    public var entraBaseURL: String { EntraIdentityProvider(context: context).endpointsURL }
    /// Where the CA certificate (PEM) was written.
    public let caCertificatePath: String
    /// The CA certificate (PEM).
    public let caCertificatePEM: String

    private init(
        context: EmulatorContext, https: Listener, http: Listener?, proxy: Listener?, location: Listener?,
        caCertificatePath: String, caCertificatePEM: String, temporaryDirectory: String?
    ) {
        self.context = context
        self.https = https
        self.http = http
        self.proxy = proxy
        self.location = location
        self.caCertificatePath = caCertificatePath
        self.caCertificatePEM = caCertificatePEM
        self.temporaryDirectory = temporaryDirectory
    }

    /// Makes the certificates, writes the CA file and starts listening.
    public static func start(
        _ configuration: EmulatorConfiguration = .default, logger: Logger? = nil
    ) async throws
        -> PortalEmulator
    {
        let logger = logger ?? Logger(label: "portal-emulator", factory: { _ in SwiftLogNoOpLogHandler() })
        let authority = try CertificateAuthority.make(extraHostnames: configuration.extraHostnames)
        let (caPath, temporaryDirectory) = try writeCACertificate(authority, configuration: configuration)
        let tls = try serverTLS(authority)

        let context = EmulatorContext(configuration: configuration, logger: logger)
        let handler = RequestHandler(context: context)
        let https = try await Listener.start(
            host: configuration.host, port: configuration.port, tls: tls, handler: handler, logger: logger)
        context.setURLs(EmulatorURLs(baseURL: "https://\(urlHost(configuration.host)):\(https.port)"))
        // Each further listener shuts down the ones started before it when it cannot start.
        var started = [https]
        func startBeside(port: Int, tls: TLSConfiguration?, handler: RequestHandler) async throws -> Listener {
            do {
                let listener = try await Listener.start(
                    host: configuration.host, port: port, tls: tls, handler: handler, logger: logger)
                started.append(listener)
                return listener
            } catch {
                for listener in started { await listener.shutdown() }
                throw error
            }
        }
        let host = urlHost(configuration.host)
        let http = try await configuration.httpPort.asyncMap {
            try await startBeside(port: $0, tls: nil, handler: handler)
        }
        var proxyHandler = handler
        proxyHandler.behindProxy = true
        let proxy = try await configuration.proxyPort.asyncMap {
            try await startBeside(port: $0, tls: tls, handler: proxyHandler)
        }
        var servicesHandler = handler
        servicesHandler.locationServices = true
        let location = try await configuration.locationServicesPort.asyncMap {
            try await startBeside(port: $0, tls: tls, handler: servicesHandler)
        }
        var urls = context.urls
        urls.proxyBaseURL = proxy.map { "https://\(host):\($0.port)" }
        urls.locationServicesBaseURL = location.map { "https://\(host):\($0.port)" }
        context.setURLs(urls)
        logger.info("portal-emulator listening", metadata: ["baseURL": "\(context.urls.baseURL)"])
        return PortalEmulator(
            context: context, https: https, http: http, proxy: proxy, location: location, caCertificatePath: caPath,
            caCertificatePEM: authority.caCertificatePEM, temporaryDirectory: temporaryDirectory)
    }

    /// Writes the CA certificate of `authority` where `configuration` says, or into a new
    /// temporary folder (returned as well: ``shutdown()`` removes it); returns the file's path.
    private static func writeCACertificate(
        _ authority: CertificateAuthority, configuration: EmulatorConfiguration
    ) throws -> (path: String, temporaryDirectory: String?) {
        var temporaryDirectory: String?
        let caPath: String
        if let path = configuration.caCertificatePath {
            caPath = path
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
        } else {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("portal-emulator-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            temporaryDirectory = directory
            caPath = directory + "/ca.pem"
        }
        try Data(authority.caCertificatePEM.utf8).write(to: URL(fileURLWithPath: caPath), options: .atomic)
        return (caPath, temporaryDirectory)
    }

    /// The listeners' TLS: the server certificate and key `authority` made.
    private static func serverTLS(_ authority: CertificateAuthority) throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: [
                .certificate(try NIOSSLCertificate(bytes: Array(authority.serverCertificatePEM.utf8), format: .pem))
            ],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(authority.serverKeyPEM.utf8), format: .pem)))
    }

    /// The host as it appears in URLs: wildcard binds become loopback, IPv6 gets brackets.
    static func urlHost(_ host: String) -> String {
        switch host {
        case "", "0.0.0.0": return "127.0.0.1"
        case "::": return "[::1]"
        default: return host.contains(":") ? "[\(host)]" : host
        }
    }

    /// The clock every expiry decision reads; move it forward (``EmulatorClock/advance(by:)``) to
    /// let tokens, codes and refresh tokens expire without waiting.
    public var clock: EmulatorClock { context.clock }

    /// A copy of the counters.
    public func counters() -> EmulatorCounters { context.counters.snapshot }

    /// Sets the counters back to zero.
    public func resetCounters() { context.counters.reset() }

    /// Adds a fault rule (rules fire in the order they were added).
    public func inject(_ fault: Fault) { context.faults.add([fault]) }

    /// Removes every fault rule.
    public func clearFaults() { context.faults.clear() }

    /// Issues a token directly, as if the user had signed in (for tests of pregenerated tokens).
    /// `referer` binds the token to that Referer header.
    public func issueToken(
        username: String, lifetimeSeconds: Int, ssl: Bool = true, kind: TokenKind = .portal, referer: String? = nil
    ) -> String {
        let record = TokenRecord(
            username: context.user(named: username)?.username ?? username, kind: kind,
            expires: context.nowMilliseconds + Int64(lifetimeSeconds) * 1000, ssl: ssl, referer: referer, ip: nil)
        return context.tokens.issue(record)
    }

    /// Issues an OAuth access token and refresh token for `username` and the app `clientID`,
    /// as if the user had signed in through the browser (for seeding OAuth credentials).
    public func issueOAuthTokens(
        username: String, clientID: String, accessLifetimeSeconds: Int, refreshLifetimeSeconds: Int
    ) -> (accessToken: String, refreshToken: String) {
        OAuthTokenService(context: context).issueTokens(
            username: context.user(named: username)?.username ?? username, clientID: clientID,
            refreshSeconds: refreshLifetimeSeconds, accessSeconds: accessLifetimeSeconds)
    }

    /// Changes the lifetime of the OAuth access tokens issued from now on (sign-in and refresh),
    /// e.g. to let a test sign in with a short-lived token and then refresh to a normal one.
    public func setOAuthAccessTokenLifetime(seconds: Int) { context.oauthAccessTokenLifetimeSeconds = seconds }

    /// Makes every outstanding authorization code expired: redeeming it fails with invalid_grant.
    public func expireAuthorizationCodes() { context.grants.expireCodes() }

    /// Revokes every refresh token (and the access tokens issued from them), as an
    /// administrator revoking a user's sessions would.
    public func revokeAllRefreshTokens() {
        context.revokeAllRefreshTokens()
    }

    /// Whether `token` (access or refresh) was revoked through `oauth2/revokeToken` or
    /// ``revokeAllRefreshTokens()``.
    public func isRevoked(_ token: String) -> Bool { context.tokens.isRevoked(token) }

    /// Changes the lifetime of the Entra tokens issued from now on (sign-in and refresh).
    public func setEntraTokenLifetime(seconds: Int) { context.entraTokenLifetimeSeconds = seconds }

    /// Makes every Entra access and ID token expired: the proxy answers 401 until the client refreshes.
    public func expireEntraTokens() { context.entra.expireAll() }

    /// Adds an API key (or replaces the one with the same value); a ``EmulatorAPIKey/lifetimeSeconds``
    /// counts from now, by the emulator's clock.
    public func addAPIKey(_ key: EmulatorAPIKey) { context.apiKeys.add(key) }

    /// Invalidates an API key, as `oauth2/revokeToken` with `apiToken` does: its next use gets 498.
    /// - Returns: false when no such key was configured or added.
    @discardableResult
    public func invalidateAPIKey(_ key: String) -> Bool { context.apiKeys.invalidate(key: key) }

    /// Makes every token issued so far expired: its next use gets 498.
    public func expireAllTokens() { context.tokens.expireAll() }

    /// Stops every listener and removes the temporary CA directory (if the emulator made one).
    public func shutdown() async throws {
        await https.shutdown()
        await http?.shutdown()
        await proxy?.shutdown()
        await location?.shutdown()
        if let temporaryDirectory { try? FileManager.default.removeItem(atPath: temporaryDirectory) }
    }
}

extension Optional {
    /// `map` with an asynchronous, throwing transform.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
