/// What the emulator has seen since it started or since the counters were last reset.
/// Requests to the admin endpoints (`/emulator/counters`, `reset`, `faults`,
/// `expire-tokens`) are not counted.
public struct EmulatorCounters: Codable, Sendable, Equatable {
    /// Every counted request.
    public var requests: Int = 0
    /// Portal generateToken calls with username/password (successful or not).
    public var generateTokenRequests: Int = 0
    /// Portal generateToken calls with token + serverUrl (federated server tokens).
    public var serverTokenRequests: Int = 0
    /// `portals/self/servers` (or `portals/<id>/servers`) reads: the portal's list of federated servers.
    public var federatedServerListReads: Int = 0
    /// Requests to the claimant server (`/claimant`, which names the portal as its owner without
    /// being federated with it) that carried a token: a client trusted the server's own claim.
    public var tokensSentToClaimant: Int = 0
    /// `/standalone/tokens/generateToken` calls.
    public var standaloneTokenRequests: Int = 0
    /// Tokens handed out by any generateToken.
    public var tokensIssued: Int = 0
    /// Requests to any `.../rest/info`.
    public var infoRequests: Int = 0
    /// FeatureServer queries by the kind of token that answered them: "server", "portal",
    /// "standalone", "none"; "rejected" counts 498/499 answers.
    public var queriesByTokenKind: [String: Int] = [:]
    /// Host header (without port) → requests that carried any token (X-Esri-Authorization,
    /// Authorization or a token parameter).
    public var tokenBearingRequestsByHost: [String: Int] = [:]
    /// Path → requests.
    public var requestsByPath: [String: Int] = [:]
    /// `oauth2/authorize` requests (page views and form posts).
    public var authorizeRequests: Int = 0
    /// `oauth2/authorize` requests with `f=json`: a client asking whether the portal knows an app
    /// (portal-auth does, before a browser sign-in), not counted in ``authorizeRequests``.
    public var authorizeJSONRequests: Int = 0
    /// `oauth2/token` with grant_type=authorization_code that issued tokens.
    public var authorizationCodeGrants: Int = 0
    /// `oauth2/token` with grant_type=refresh_token that issued tokens.
    public var refreshTokenGrants: Int = 0
    /// `oauth2/token` with grant_type=exchange_refresh_token that issued tokens.
    public var exchangeRefreshTokenGrants: Int = 0
    /// `oauth2/token` with grant_type=client_credentials that issued tokens.
    public var clientCredentialsGrants: Int = 0
    /// `oauth2/token` requests answered with an error.
    public var oauthTokenErrors: Int = 0
    /// `oauth2/revokeToken` requests.
    public var revokeRequests: Int = 0
    /// Entra `authorize` requests (page views and form posts).
    public var entraAuthorizeRequests: Int = 0
    /// Entra `token` with grant_type=authorization_code that issued tokens.
    public var entraAuthorizationCodeGrants: Int = 0
    /// Entra `token` with grant_type=refresh_token that issued tokens.
    public var entraRefreshTokenGrants: Int = 0
    /// Entra `token` requests answered with an error.
    public var entraTokenErrors: Int = 0
    /// Entra `logout` page views.
    public var entraLogouts: Int = 0
    /// The `prompt` of the last Entra authorize request ("" when none was sent).
    public var entraLastPrompt: String = ""
    /// Requests reaching the application proxy, by the bearer token they carried: "access",
    /// "id", "none" (redirected to sign-in) or "rejected" (unknown or expired: 401).
    public var proxyRequestsByToken: [String: Int] = [:]
    /// Requests on the portal's own listener (not the proxy) that carried an Entra token in
    /// `Authorization`: a client sending the proxy's token to another host.
    public var entraTokensOutsideProxy: Int = 0
    /// Origin (`https://HOST:PORT` as the request's `Host` header named it) → API key label (its
    /// `name`, else the key) → requests that carried that configured API key in any header or
    /// parameter, whether it was accepted or not: "the key never reached this host" is the
    /// origin's absence.
    public var apiKeyRequestsByOrigin: [String: [String: Int]] = [:]
    /// Origin (`https://HOST:PORT`, as for ``apiKeyRequestsByOrigin``) → requests that carried any
    /// token (X-Esri-Authorization, Authorization or a token parameter): tells the portal's
    /// listener from the location services' and the proxy's, which share a host.
    public var tokenBearingRequestsByOrigin: [String: Int] = [:]
    /// `oauth2/revokeToken` requests with `apiToken` that invalidated API keys.
    public var apiKeyInvalidations: Int = 0
    /// `oauth2/token` requests with `apiToken` that issued a new API key.
    public var apiKeyRegenerations: Int = 0

    /// Creates counters, all zero.
    public init() {}
}
