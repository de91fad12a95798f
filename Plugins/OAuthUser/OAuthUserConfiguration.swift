public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How to sign a user in to a portal with OAuth 2.0 (authorization code with PKCE): the portal,
/// the registered app's client ID, and where the browser comes back to.
public struct OAuthUserConfiguration: Sendable, Equatable {
    /// The portal URL, for example `https://www.arcgis.com` or `https://host/portal`.
    public var portalURL: URL
    /// The client ID of the app registered in the portal.
    public var clientID: String
    /// The redirect URL registered for the app: `http://127.0.0.1[:PORT]/path` (loopback, the
    /// default, on a free port when none is given), `urn:ietf:wg:oauth:2.0:oob`, or an app URL.
    public var redirectURL: URL
    /// The refresh token lifetime to ask for, in minutes (ArcGIS's `expiration`; two weeks by default).
    public var refreshTokenExpirationMinutes: Int
    /// How long to wait for the browser to come back, in seconds.
    public var timeout: TimeInterval

    /// The default redirect: a loopback listener on a free port.
    public static let defaultRedirectURL = URL(string: "http://127.0.0.1/oauth/callback")!

    /// Creates a configuration; throws for an invalid portal URL, an empty client ID or an
    /// unusable redirect URL.
    public init(
        portalURL: URL, clientID: String, redirectURL: URL = OAuthUserConfiguration.defaultRedirectURL,
        refreshTokenExpirationMinutes: Int = 20160, timeout: TimeInterval = 300
    ) throws {
        guard !clientID.isEmpty else {
            throw PortalAuthError(.invalidArgument, "the client ID is empty", remedy: .provide(.clientID))
        }
        guard refreshTokenExpirationMinutes > 0 else {
            throw PortalAuthError(
                .invalidArgument, "the refresh token expiration must be a positive number of minutes",
                remedy: .fixConfiguration(file: nil, key: "refresh_token_expiration_minutes"))
        }
        guard timeout > 0 else {
            throw PortalAuthError(
                .invalidArgument, "the sign-in timeout must be a positive number of seconds",
                remedy: .fixConfiguration(file: nil, key: "timeout_seconds"))
        }
        _ = try AuthorizationRedirect(redirectURL.absoluteString)
        // The user types the password into the portal's page: never over plain http (loopback aside).
        let host = portalURL.host(percentEncoded: false)?.lowercased() ?? ""
        guard portalURL.scheme?.lowercased() == "https" || ConfigurationFile.isLoopback(host: host) else {
            throw PortalAuthError(
                .insecureTransport,
                "the portal URL \(URLRedaction.redact(portalURL.absoluteString)) is not https: the sign-in page would "
                    + "send the password in the clear",
                remedy: .useHTTPS(url: portalURL))
        }
        self.portalURL = portalURL
        self.clientID = clientID
        self.redirectURL = redirectURL
        self.refreshTokenExpirationMinutes = refreshTokenExpirationMinutes
        self.timeout = timeout
        _ = try portalContext
    }

    /// The portal's server context.
    public var portalContext: ServerContext { get throws { try ServerContext(url: portalURL) } }

    /// The redirect, classified.
    package var redirect: AuthorizationRedirect {
        (try? AuthorizationRedirect(redirectURL.absoluteString)) ?? .defaultLoopback
    }
}

extension OAuthUserConfiguration {
    /// The keys of a configuration file (see config/oauth-user.example.json).
    public static let fileKeys: Set<String> = [
        "type", "portal_url", "client_id", "redirect_url", "refresh_token_expiration_minutes", "timeout_seconds",
    ]

    /// The kind of file it reads (`"type": "oauth-user"`), for ``ConfigurationFile/readingKind(among:)``.
    public static let fileKind = ConfigurationKind(
        type: "oauth-user", name: "an OAuth user sign-in", keys: fileKeys)

    /// Reads a configuration from a JSON file: `portal_url` and `client_id` (required),
    /// `redirect_url`, `refresh_token_expiration_minutes`, `timeout_seconds`, and optionally
    /// `"type": "oauth-user"`. Unknown keys and wrong types are errors naming the key.
    public init(file: ConfigurationFile) throws {
        try file.requireOnlyKeys(Self.fileKeys)
        if let type = try file.optionalString("type"), type != "oauth-user" {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(file.context): \"type\" is \"\(type)\" but this is an OAuth user configuration (\"oauth-user\")",
                remedy: .fixConfiguration(file: file.source, key: "type"))
        }
        let portal = try file.httpsURL("portal_url")
        let clientID = try file.string("client_id")
        let redirect = try file.optionalString("redirect_url") ?? Self.defaultRedirectURL.absoluteString
        guard (try? AuthorizationRedirect(redirect)) != nil, let redirectURL = URL(string: redirect) else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(file.context): \"redirect_url\" must be http://127.0.0.1[:PORT]/path, "
                    + "\(AuthorizationRedirect.outOfBandURI) or the app's registered URL, not \(redirect)",
                remedy: .fixConfiguration(file: file.source, key: "redirect_url"))
        }
        try self.init(
            portalURL: portal, clientID: clientID, redirectURL: redirectURL,
            refreshTokenExpirationMinutes: try file.optionalPositiveInteger("refresh_token_expiration_minutes")
                ?? 20160,
            timeout: TimeInterval(try file.optionalPositiveInteger("timeout_seconds") ?? 300))
    }

    /// Reads a configuration file (see config/oauth-user.example.json) from a path.
    public init(contentsOf path: String) throws {
        try self.init(file: try ConfigurationFile(contentsOf: path))
    }
}
