import Logging
public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A user signed in to a portal with OAuth 2.0: an access token and a refresh token. The
/// password is never seen.
///
/// Before use, an access token that expires within 5 minutes is refreshed
/// (`grant_type=refresh_token`); a refresh token that expires within 24 hours is exchanged for a
/// new one (`grant_type=exchange_refresh_token`). The ``AuthenticationManager`` does this once
/// across tasks and processes and stores the result. A refresh token the portal rejects makes
/// ``renewed(using:)`` return nil, so the manager asks the plugin for a new sign-in.
public struct OAuthUserCredential: RevocableCredential, Equatable {
    /// `oauth-user`.
    public static let kind = "oauth-user"
    /// The portal.
    public let serverContext: ServerContext
    /// The app's client ID.
    public let clientID: String
    /// The redirect URL as configured (a loopback without a port means "a free port"). Stored as
    /// the same JSON string the previous version's `String` was, so stored credentials still decode.
    public let redirectURL: URL
    /// The redirect URI the sign-in actually used (the exchange grant sends it again).
    public let redirectURI: String
    /// The user.
    public let username: String?
    /// The access token.
    public let tokenInfo: TokenInfo
    /// The refresh token (secret).
    public let refreshToken: String
    /// `true`: the portal's OAuth token endpoint issued it.
    public var isIssuedByPortal: Bool { true }
    /// When the refresh token expires.
    public let refreshTokenExpirationDate: Date?

    /// A refresh token expiring within this many seconds is exchanged for a new one (24 hours).
    public static let refreshTokenExchangeLeeway: TimeInterval = 24 * 3600

    /// Creates a credential from its parts.
    public init(
        serverContext: ServerContext, clientID: String, redirectURL: URL, redirectURI: String, username: String?,
        tokenInfo: TokenInfo,
        refreshToken: String, refreshTokenExpirationDate: Date?
    ) {
        self.serverContext = serverContext
        self.clientID = clientID
        self.redirectURL = redirectURL
        self.redirectURI = redirectURI
        self.username = username
        self.tokenInfo = tokenInfo
        self.refreshToken = refreshToken
        self.refreshTokenExpirationDate = refreshTokenExpirationDate
    }

    /// An OAuth user sign-in to the same portal with the same app.
    public var howToSignIn: PortalAuthError.SignIn {
        PortalAuthError.SignIn(kind: Self.kind, serverContext: serverContext, username: username, clientID: clientID)
    }

    /// Signs a user in: the browser part through the authorization code flow, then the code is
    /// exchanged at the portal's token endpoint. Nothing is stored here.
    public static func credential(
        for configuration: OAuthUserConfiguration, userAgent: any AuthorizationUserAgent,
        services: AuthenticationServices
    ) async throws -> OAuthUserCredential {
        let portal = try configuration.portalContext
        let endpoint = ArcGISOAuthTokenEndpoint(portal: portal)
        let request = AuthorizationCodeRequest(
            authorizeURL: endpoint.authorizeURL, clientID: configuration.clientID, redirect: configuration.redirect,
            extraParameters: [("expiration", String(configuration.refreshTokenExpirationMinutes))],
            timeout: configuration.timeout)
        let grant = try await AuthorizationCodeFlow.authorize(request, userAgent: userAgent, logger: services.logger)
        let response: ArcGISOAuthTokenResponse
        do {
            response = try await endpoint.requestToken(
                grant.tokenParameters(clientID: configuration.clientID), services: services)
        } catch let error as PortalAuthError where error.code == .arcGISError {
            throw PortalAuthError(
                .authenticationFailed,
                "\(portal) refused the authorization code (\(error.message)); nothing was stored",
                remedy: .signIn(.init(kind: kind, serverContext: portal, clientID: configuration.clientID)),
                cause: error.cause)
        }
        guard let refreshToken = response.refreshToken, !refreshToken.isEmpty else {
            throw PortalAuthError(
                .invalidResponse,
                "\(portal) returned no refresh token for the sign-in; nothing was stored",
                remedy: .checkAppRegistration(server: portal.description))
        }
        services.logger.debug(
            "oauth sign-in complete", metadata: ["server": "\(portal)", "user": "\(response.username ?? "?")"])
        return OAuthUserCredential(
            serverContext: portal, clientID: configuration.clientID, redirectURL: configuration.redirectURL,
            redirectURI: grant.redirectURI, username: response.username,
            tokenInfo: response.tokenInfo, refreshToken: refreshToken,
            refreshTokenExpirationDate: response.refreshTokenExpirationDate)
    }

    /// Refreshes the access token, exchanging the refresh token first when it is close to expiry.
    /// Returns nil when the portal rejects the refresh token (a new sign-in is needed).
    public func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? {
        let exchange =
            refreshTokenExpirationDate.map { $0.timeIntervalSinceNow < Self.refreshTokenExchangeLeeway } ?? false
        return try await renewed(exchange: exchange, using: services)
    }

    /// The refresh token's end.
    public var renewableUntil: Date? { refreshTokenExpirationDate }

    /// It renews itself with its refresh token until the refresh token's end.
    public var renewal: CredentialRenewal { .renewsItselfUntil(refreshTokenExpirationDate) }

    /// Exchanges the refresh token for a new one, however far its end is (with a new access
    /// token). Returns nil when the portal rejects the refresh token (a new sign-in is needed).
    public func renewedToLast(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? {
        try await renewed(exchange: true, using: services)
    }

    private func renewed(exchange: Bool, using services: AuthenticationServices) async throws -> OAuthUserCredential? {
        if let refreshTokenExpirationDate, refreshTokenExpirationDate <= Date() { return nil }
        let endpoint = ArcGISOAuthTokenEndpoint(portal: serverContext)
        let parameters: [(String, String)] =
            exchange
            ? [
                ("grant_type", "exchange_refresh_token"), ("client_id", clientID), ("redirect_uri", redirectURI),
                ("refresh_token", refreshToken),
            ]
            : [("grant_type", "refresh_token"), ("client_id", clientID), ("refresh_token", refreshToken)]
        services.logger.debug(
            exchange ? "exchanging refresh token" : "refreshing access token", metadata: ["server": "\(serverContext)"])
        do {
            let response = try await endpoint.requestToken(parameters, services: services)
            return OAuthUserCredential(
                serverContext: serverContext, clientID: clientID, redirectURL: redirectURL, redirectURI: redirectURI,
                username: response.username ?? username,
                tokenInfo: response.tokenInfo, refreshToken: response.refreshToken ?? refreshToken,
                refreshTokenExpirationDate: response.refreshToken == nil
                    ? refreshTokenExpirationDate : response.refreshTokenExpirationDate)
        } catch let error as PortalAuthError where ArcGISOAuthTokenEndpoint.isRejectedGrant(error) {
            services.logger.info(
                "refresh token rejected; a new sign-in is needed", metadata: ["server": "\(serverContext)"])
            return nil
        }
    }

    /// Revokes the refresh token (which revokes the access tokens issued from it) and the
    /// current access token at the portal.
    public func revoke(using services: AuthenticationServices) async throws {
        let endpoint = ArcGISOAuthTokenEndpoint(portal: serverContext)
        try await endpoint.revoke(refreshToken, hint: "refresh_token", clientID: clientID, services: services)
        try await endpoint.revoke(tokenInfo.accessToken, hint: "access_token", clientID: clientID, services: services)
    }
}
