import Foundation

/// Everything that shapes an emulator run. Every key is optional in JSON; absent keys take
/// the defaults of ``EmulatorConfiguration/default``.
public struct EmulatorConfiguration: Codable, Sendable, Equatable {
    /// Address to bind, "127.0.0.1" by default.
    public var host: String
    /// HTTPS port; 0 picks a free port.
    public var port: Int
    /// Plain-HTTP port; nil for no plain listener, 0 for a free port.
    public var httpPort: Int?
    /// Extra host names (or IP addresses) to put in the server certificate's SANs.
    public var extraHostnames: [String]
    /// Where to write the CA certificate (PEM); nil writes into a fresh temporary directory.
    public var caCertificatePath: String?
    /// The portal's name in `portals/self`.
    public var portalName: String
    /// Portal members.
    public var users: [EmulatorUser]
    /// Token lifetime when generateToken gets no `expiration`, in minutes.
    public var tokenLifetimeMinutes: Int
    /// The longest lifetime generateToken grants, in minutes.
    public var maxTokenLifetimeMinutes: Int
    /// When true (the default) the federated server accepts the portal's own tokens directly, as
    /// real federated servers do; false keeps it exchange-only (498 to anything but a server token
    /// from the portal's generateToken), for tests of the exchange.
    public var serverAcceptsPortalTokens: Bool
    /// The most features one query page holds (the layer's `maxRecordCount`); a query for more
    /// gets this many and `exceededTransferLimit`, so clients page with `resultOffset`.
    public var maxRecordCount: Int
    /// Delay added to every request, in milliseconds.
    public var latencyMilliseconds: Int
    /// Registered OAuth 2.0 applications.
    public var apps: [EmulatorApp]
    /// Lifetime of OAuth access tokens (authorization_code, refresh_token and
    /// exchange_refresh_token grants), in seconds.
    public var oauthAccessTokenLifetimeSeconds: Int
    /// Lifetime of OAuth refresh tokens, in seconds (two weeks by default).
    public var refreshTokenLifetimeSeconds: Int
    /// How long an authorization code can be redeemed, in seconds.
    public var authorizationCodeLifetimeSeconds: Int
    /// The HTTPS port of the emulated Microsoft Entra Application Proxy in front of the portal
    /// (0 picks a free port); nil runs no proxy.
    public var proxyPort: Int?
    /// The tenant in the emulated Entra ID's URLs (`/entra/{tenant}/oauth2/v2.0/...`).
    public var entraTenant: String
    /// Apps registered with the emulated Entra ID (client ID and redirect URIs; the proxy's
    /// pre-authentication app first).
    public var entraApps: [EmulatorApp]
    /// Lifetime of Entra access and ID tokens, in seconds (one hour by default).
    public var entraTokenLifetimeSeconds: Int
    /// The HTTPS port of the location services (geocoding, routing, basemap styles), a host:port of
    /// their own as in ArcGIS Online; 0 (the default) picks a free port, nil runs none.
    public var locationServicesPort: Int?
    /// API keys the portal, the federated server and the location services accept, each as far as
    /// its privileges reach.
    public var apiKeys: [EmulatorAPIKey]

    /// Creates a configuration; every argument has the default value.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        httpPort: Int? = nil,
        extraHostnames: [String] = [],
        caCertificatePath: String? = nil,
        portalName: String = "Emulated Portal",
        users: [EmulatorUser] = [.alice, .bob],
        tokenLifetimeMinutes: Int = 60,
        maxTokenLifetimeMinutes: Int = 20160,
        serverAcceptsPortalTokens: Bool = true,
        maxRecordCount: Int = 1000,
        latencyMilliseconds: Int = 0,
        apps: [EmulatorApp] = [.portalAuthCLI, .portalAuthApp],
        oauthAccessTokenLifetimeSeconds: Int = 1800,
        refreshTokenLifetimeSeconds: Int = 1_209_600,
        authorizationCodeLifetimeSeconds: Int = 60,
        proxyPort: Int? = nil,
        entraTenant: String = "emulated-tenant",
        entraApps: [EmulatorApp] = [.iapClient],
        entraTokenLifetimeSeconds: Int = 3600,
        locationServicesPort: Int? = 0,
        apiKeys: [EmulatorAPIKey] = []
    ) {
        self.host = host
        self.port = port
        self.httpPort = httpPort
        self.extraHostnames = extraHostnames
        self.caCertificatePath = caCertificatePath
        self.portalName = portalName
        self.users = users
        self.tokenLifetimeMinutes = tokenLifetimeMinutes
        self.maxTokenLifetimeMinutes = maxTokenLifetimeMinutes
        self.serverAcceptsPortalTokens = serverAcceptsPortalTokens
        self.maxRecordCount = maxRecordCount
        self.latencyMilliseconds = latencyMilliseconds
        self.apps = apps
        self.oauthAccessTokenLifetimeSeconds = oauthAccessTokenLifetimeSeconds
        self.refreshTokenLifetimeSeconds = refreshTokenLifetimeSeconds
        self.authorizationCodeLifetimeSeconds = authorizationCodeLifetimeSeconds
        self.proxyPort = proxyPort
        self.entraTenant = entraTenant
        self.entraApps = entraApps
        self.entraTokenLifetimeSeconds = entraTokenLifetimeSeconds
        self.locationServicesPort = locationServicesPort
        self.apiKeys = apiKeys
    }

    /// The defaults: 127.0.0.1, a free port, no plain listener, users alice and bob,
    /// 60-minute tokens capped at 20160 minutes, a federated server that accepts portal tokens,
    /// 1000 features per query page, the OAuth apps `portal-auth-cli` and
    /// `portal-auth-app`, 30-minute OAuth access tokens, two-week refresh tokens and
    /// 60-second authorization codes; no application proxy, and the Entra app `iap-client`;
    /// location services on a free port, and no API keys.
    public static var `default`: EmulatorConfiguration { EmulatorConfiguration() }

    /// Reads a JSON configuration file.
    public static func load(contentsOf path: String) throws -> EmulatorConfiguration {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(EmulatorConfiguration.self, from: data)
    }

    private enum CodingKeys: String, CodingKey {
        case host, port, httpPort, extraHostnames, caCertificatePath, portalName, users
        case tokenLifetimeMinutes, maxTokenLifetimeMinutes, serverAcceptsPortalTokens, maxRecordCount
        case latencyMilliseconds
        case apps, oauthAccessTokenLifetimeSeconds, refreshTokenLifetimeSeconds, authorizationCodeLifetimeSeconds
        case proxyPort, entraTenant, entraApps, entraTokenLifetimeSeconds
        case locationServicesPort, apiKeys
    }

    /// Decodes a configuration, taking defaults for absent keys.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = EmulatorConfiguration()
        self.init(
            host: try c.decodeIfPresent(String.self, forKey: .host) ?? d.host,
            port: try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port,
            httpPort: try c.decodeIfPresent(Int.self, forKey: .httpPort),
            extraHostnames: try c.decodeIfPresent([String].self, forKey: .extraHostnames) ?? d.extraHostnames,
            caCertificatePath: try c.decodeIfPresent(String.self, forKey: .caCertificatePath),
            portalName: try c.decodeIfPresent(String.self, forKey: .portalName) ?? d.portalName,
            users: try c.decodeIfPresent([EmulatorUser].self, forKey: .users) ?? d.users,
            tokenLifetimeMinutes: try c.decodeIfPresent(Int.self, forKey: .tokenLifetimeMinutes)
                ?? d.tokenLifetimeMinutes,
            maxTokenLifetimeMinutes: try c.decodeIfPresent(Int.self, forKey: .maxTokenLifetimeMinutes)
                ?? d.maxTokenLifetimeMinutes,
            serverAcceptsPortalTokens: try c.decodeIfPresent(Bool.self, forKey: .serverAcceptsPortalTokens)
                ?? d.serverAcceptsPortalTokens,
            maxRecordCount: try c.decodeIfPresent(Int.self, forKey: .maxRecordCount) ?? d.maxRecordCount,
            latencyMilliseconds: try c.decodeIfPresent(Int.self, forKey: .latencyMilliseconds) ?? d.latencyMilliseconds,
            apps: try c.decodeIfPresent([EmulatorApp].self, forKey: .apps) ?? d.apps,
            oauthAccessTokenLifetimeSeconds: try c.decodeIfPresent(Int.self, forKey: .oauthAccessTokenLifetimeSeconds)
                ?? d.oauthAccessTokenLifetimeSeconds,
            refreshTokenLifetimeSeconds: try c.decodeIfPresent(Int.self, forKey: .refreshTokenLifetimeSeconds)
                ?? d.refreshTokenLifetimeSeconds,
            authorizationCodeLifetimeSeconds: try c.decodeIfPresent(Int.self, forKey: .authorizationCodeLifetimeSeconds)
                ?? d.authorizationCodeLifetimeSeconds,
            proxyPort: try c.decodeIfPresent(Int.self, forKey: .proxyPort),
            entraTenant: try c.decodeIfPresent(String.self, forKey: .entraTenant) ?? d.entraTenant,
            entraApps: try c.decodeIfPresent([EmulatorApp].self, forKey: .entraApps) ?? d.entraApps,
            entraTokenLifetimeSeconds: try c.decodeIfPresent(Int.self, forKey: .entraTokenLifetimeSeconds)
                ?? d.entraTokenLifetimeSeconds,
            locationServicesPort: c.contains(.locationServicesPort)
                ? try c.decodeIfPresent(Int.self, forKey: .locationServicesPort) : d.locationServicesPort,
            apiKeys: try c.decodeIfPresent([EmulatorAPIKey].self, forKey: .apiKeys) ?? d.apiKeys
        )
    }

    /// Encodes every key (optional ones as null), as in config/emulator.json.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(host, forKey: .host)
        try c.encode(port, forKey: .port)
        try c.encode(httpPort, forKey: .httpPort)
        try c.encode(extraHostnames, forKey: .extraHostnames)
        try c.encode(caCertificatePath, forKey: .caCertificatePath)
        try c.encode(portalName, forKey: .portalName)
        try c.encode(users, forKey: .users)
        try c.encode(tokenLifetimeMinutes, forKey: .tokenLifetimeMinutes)
        try c.encode(maxTokenLifetimeMinutes, forKey: .maxTokenLifetimeMinutes)
        try c.encode(serverAcceptsPortalTokens, forKey: .serverAcceptsPortalTokens)
        try c.encode(maxRecordCount, forKey: .maxRecordCount)
        try c.encode(latencyMilliseconds, forKey: .latencyMilliseconds)
        try c.encode(apps, forKey: .apps)
        try c.encode(oauthAccessTokenLifetimeSeconds, forKey: .oauthAccessTokenLifetimeSeconds)
        try c.encode(refreshTokenLifetimeSeconds, forKey: .refreshTokenLifetimeSeconds)
        try c.encode(authorizationCodeLifetimeSeconds, forKey: .authorizationCodeLifetimeSeconds)
        try c.encode(proxyPort, forKey: .proxyPort)
        try c.encode(entraTenant, forKey: .entraTenant)
        try c.encode(entraApps, forKey: .entraApps)
        try c.encode(entraTokenLifetimeSeconds, forKey: .entraTokenLifetimeSeconds)
        try c.encode(locationServicesPort, forKey: .locationServicesPort)
        try c.encode(apiKeys, forKey: .apiKeys)
    }
}
