/// What the emulator has seen since it started or since the counters were last reset.
/// Requests to the admin endpoints (`/emulator/counters`, `reset`, `faults`,
/// `expire-tokens`) are not counted.
public struct EmulatorCounters: Codable, Sendable, Equatable {
    /// Every counted request.
    public var requests: Int
    /// Portal generateToken calls with username/password (successful or not).
    public var generateTokenRequests: Int
    /// Portal generateToken calls with token + serverUrl (federated server tokens).
    public var serverTokenRequests: Int
    /// `/standalone/tokens/generateToken` calls.
    public var standaloneTokenRequests: Int
    /// Tokens handed out by any generateToken.
    public var tokensIssued: Int
    /// Requests to any `.../rest/info`.
    public var infoRequests: Int
    /// FeatureServer queries by the kind of token that answered them: "server", "portal",
    /// "standalone", "none"; "rejected" counts 498/499 answers.
    public var queriesByTokenKind: [String: Int]
    /// Host header (without port) → requests that carried any token (X-Esri-Authorization,
    /// Authorization or a token parameter).
    public var tokenBearingRequestsByHost: [String: Int]
    /// Path → requests.
    public var requestsByPath: [String: Int]
    /// `oauth2/authorize` requests (page views and form posts).
    public var authorizeRequests: Int
    /// `oauth2/token` with grant_type=authorization_code that issued tokens.
    public var authorizationCodeGrants: Int
    /// `oauth2/token` with grant_type=refresh_token that issued tokens.
    public var refreshTokenGrants: Int
    /// `oauth2/token` with grant_type=exchange_refresh_token that issued tokens.
    public var exchangeRefreshTokenGrants: Int
    /// `oauth2/token` with grant_type=client_credentials that issued tokens.
    public var clientCredentialsGrants: Int
    /// `oauth2/token` requests answered with an error.
    public var oauthTokenErrors: Int
    /// `oauth2/revokeToken` requests.
    public var revokeRequests: Int
    /// Entra `authorize` requests (page views and form posts).
    public var entraAuthorizeRequests: Int
    /// Entra `token` with grant_type=authorization_code that issued tokens.
    public var entraAuthorizationCodeGrants: Int
    /// Entra `token` with grant_type=refresh_token that issued tokens.
    public var entraRefreshTokenGrants: Int
    /// Entra `token` requests answered with an error.
    public var entraTokenErrors: Int
    /// Entra `logout` page views.
    public var entraLogouts: Int
    /// The `prompt` of the last Entra authorize request ("" when none was sent).
    public var entraLastPrompt: String
    /// Requests reaching the application proxy, by the bearer token they carried: "access",
    /// "id", "none" (redirected to sign-in) or "rejected" (unknown or expired: 401).
    public var proxyRequestsByToken: [String: Int]
    /// Requests on the portal's own listener (not the proxy) that carried an Entra token in
    /// `Authorization`: a client sending the proxy's token to another host.
    public var entraTokensOutsideProxy: Int

    /// Creates counters (all zero by default).
    public init(
        requests: Int = 0,
        generateTokenRequests: Int = 0,
        serverTokenRequests: Int = 0,
        standaloneTokenRequests: Int = 0,
        tokensIssued: Int = 0,
        infoRequests: Int = 0,
        queriesByTokenKind: [String: Int] = [:],
        tokenBearingRequestsByHost: [String: Int] = [:],
        requestsByPath: [String: Int] = [:],
        authorizeRequests: Int = 0,
        authorizationCodeGrants: Int = 0,
        refreshTokenGrants: Int = 0,
        exchangeRefreshTokenGrants: Int = 0,
        clientCredentialsGrants: Int = 0,
        oauthTokenErrors: Int = 0,
        revokeRequests: Int = 0,
        entraAuthorizeRequests: Int = 0,
        entraAuthorizationCodeGrants: Int = 0,
        entraRefreshTokenGrants: Int = 0,
        entraTokenErrors: Int = 0,
        entraLogouts: Int = 0,
        entraLastPrompt: String = "",
        proxyRequestsByToken: [String: Int] = [:],
        entraTokensOutsideProxy: Int = 0
    ) {
        self.requests = requests
        self.generateTokenRequests = generateTokenRequests
        self.serverTokenRequests = serverTokenRequests
        self.standaloneTokenRequests = standaloneTokenRequests
        self.tokensIssued = tokensIssued
        self.infoRequests = infoRequests
        self.queriesByTokenKind = queriesByTokenKind
        self.tokenBearingRequestsByHost = tokenBearingRequestsByHost
        self.requestsByPath = requestsByPath
        self.authorizeRequests = authorizeRequests
        self.authorizationCodeGrants = authorizationCodeGrants
        self.refreshTokenGrants = refreshTokenGrants
        self.exchangeRefreshTokenGrants = exchangeRefreshTokenGrants
        self.clientCredentialsGrants = clientCredentialsGrants
        self.oauthTokenErrors = oauthTokenErrors
        self.revokeRequests = revokeRequests
        self.entraAuthorizeRequests = entraAuthorizeRequests
        self.entraAuthorizationCodeGrants = entraAuthorizationCodeGrants
        self.entraRefreshTokenGrants = entraRefreshTokenGrants
        self.entraTokenErrors = entraTokenErrors
        self.entraLogouts = entraLogouts
        self.entraLastPrompt = entraLastPrompt
        self.proxyRequestsByToken = proxyRequestsByToken
        self.entraTokensOutsideProxy = entraTokensOutsideProxy
    }
}
