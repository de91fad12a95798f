import Crypto
import Foundation
import Logging

/// An OAuth error as the portal sends it: HTTP 200,
/// `{"error":{"code":..,"error":..,"error_description":..,"message":..,"details":[]}}`.
struct OAuthError: Error, Sendable, Equatable {
    /// The ArcGIS code: 400, or 498 for an expired or rejected refresh token.
    var code: Int
    /// The OAuth error: `invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`.
    var error: String
    /// The description (also the `message`).
    var description: String

    var json: JSONValue {
        .object([
            (
                "error",
                .object([
                    ("code", .number(code)), ("error", .string(error)), ("error_description", .string(description)),
                    ("message", .string(description)), ("details", .array([])),
                ])
            )
        ])
    }

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(code: 400, error: "invalid_request", description: description)
    }
    static func invalidGrant(_ description: String, code: Int = 400) -> OAuthError {
        OAuthError(code: code, error: "invalid_grant", description: description)
    }
    static let invalidClientID = OAuthError(code: 400, error: "invalid_client", description: "Invalid client_id")
}

/// `oauth2/token` (all four grants) and `oauth2/revokeToken`.
struct OAuthTokenService: Sendable {
    let context: EmulatorContext

    /// Answers one `oauth2/token` request.
    func token(_ request: IncomingRequest) -> OutgoingResponse {
        guard request.isSecure else { return Rendering.error(.sslRequired, for: request) }
        guard request.method == "POST" else {
            return Rendering.error(
                ArcGISError(
                    code: 405, message: "Method not supported.",
                    details: ["oauth2/token only accepts POST requests."]), for: request)
        }
        let result: Result<JSONValue, OAuthError>
        switch request.parameter("grant_type") {
        case "authorization_code": result = authorizationCode(request)
        case "refresh_token": result = refresh(request, exchange: false)
        case "exchange_refresh_token": result = refresh(request, exchange: true)
        case "client_credentials" where request.parameter("apitoken") != nil: result = regenerateAPIKey(request)
        case "client_credentials": result = clientCredentials(request)
        case nil: result = .failure(.invalidRequest("grant_type is required"))
        case let other?:
            result = .failure(
                OAuthError(
                    code: 400, error: "unsupported_grant_type",
                    description: "Unsupported grant_type '\(other)'"))
        }
        switch result {
        case .success(let body): return .json(body)
        case .failure(let error):
            context.counters.update { $0.oauthTokenErrors += 1 }
            context.logger.debug(
                "oauth2/token refused", metadata: ["error": "\(error.error)", "why": "\(error.description)"])
            return .json(error.json)
        }
    }

    /// `oauth2/revokeToken`: success for every token, known or not (as the portal does).
    func revoke(_ request: IncomingRequest) -> OutgoingResponse {
        context.counters.update { $0.revokeRequests += 1 }
        guard request.isSecure else { return Rendering.error(.sslRequired, for: request) }
        guard request.method == "POST" else {
            return Rendering.error(
                ArcGISError(
                    code: 405, message: "Method not supported.",
                    details: ["oauth2/revokeToken only accepts POST requests."]), for: request)
        }
        if request.parameter("apitoken") != nil { return revokeAPIKey(request) }
        guard let clientID = request.parameter("client_id"), context.app(clientID: clientID) != nil else {
            return .json(OAuthError.invalidClientID.json)
        }
        guard let token = request.parameter("auth_token") ?? request.parameter("token") else {
            return .json(OAuthError.invalidRequest("auth_token is required").json)
        }
        context.revoke(token)
        return .json(.object([("success", .bool(true))]))
    }

    private func authorizationCode(_ request: IncomingRequest) -> Result<JSONValue, OAuthError> {
        guard let clientID = request.parameter("client_id"), let app = context.app(clientID: clientID) else {
            return .failure(.invalidClientID)
        }
        guard let code = request.parameter("code") else { return .failure(.invalidRequest("code is required")) }
        // Single use: the code is gone whatever happens next.
        guard let grant = context.grants.redeemCode(code) else {
            return .failure(.invalidGrant("Invalid authorization code"))
        }
        guard grant.expires > context.nowMilliseconds else {
            return .failure(.invalidGrant("Authorization code expired"))
        }
        guard grant.clientID == app.clientId else {
            return .failure(.invalidGrant("The code was issued to another application"))
        }
        guard request.parameter("redirect_uri") == grant.redirectURI else {
            return .failure(.invalidGrant("redirect_uri does not match the one the code was issued for"))
        }
        if let challenge = grant.codeChallenge {
            guard let verifier = request.parameter("code_verifier") else {
                return .failure(.invalidRequest("code_verifier is required"))
            }
            guard (43...128).contains(verifier.count), Self.s256(verifier) == challenge else {
                return .failure(.invalidGrant("Invalid code_verifier"))
            }
        } else if request.parameter("client_secret") != app.clientSecret {
            return .failure(OAuthError(code: 400, error: "invalid_client", description: "Invalid client_secret"))
        }
        let configured = context.configuration.refreshTokenLifetimeSeconds
        let refreshSeconds = grant.expirationMinutes.map { min($0 * 60, configured) } ?? configured
        context.counters.update { $0.authorizationCodeGrants += 1 }
        return .success(issue(username: grant.username, clientID: app.clientId, refreshSeconds: refreshSeconds))
    }

    private func refresh(_ request: IncomingRequest, exchange: Bool) -> Result<JSONValue, OAuthError> {
        guard let clientID = request.parameter("client_id"), let app = context.app(clientID: clientID) else {
            return .failure(.invalidClientID)
        }
        guard let refreshToken = request.parameter("refresh_token") else {
            return .failure(.invalidRequest("refresh_token is required"))
        }
        guard let grant = context.grants.refreshToken(refreshToken) else {
            return .failure(.invalidGrant("Invalid refresh_token", code: 498))
        }
        guard grant.expires > context.nowMilliseconds else {
            return .failure(OAuthError(code: 498, error: "invalid_request", description: "refresh_token expired"))
        }
        guard grant.clientID == app.clientId else { return .failure(.invalidGrant("Invalid refresh_token", code: 498)) }
        if exchange {
            guard let redirectURI = request.parameter("redirect_uri"), app.allows(redirectURI: redirectURI) else {
                return .failure(.invalidRequest("Invalid redirect_uri"))
            }
            context.grants.revokeRefreshToken(refreshToken)
            context.counters.update { $0.exchangeRefreshTokenGrants += 1 }
            return .success(
                issue(
                    username: grant.username, clientID: app.clientId,
                    refreshSeconds: context.configuration.refreshTokenLifetimeSeconds))
        }
        context.counters.update { $0.refreshTokenGrants += 1 }
        return .success(
            issue(username: grant.username, clientID: app.clientId, refreshSeconds: nil, from: refreshToken))
    }

    private func clientCredentials(_ request: IncomingRequest) -> Result<JSONValue, OAuthError> {
        guard let clientID = request.parameter("client_id"), let app = context.app(clientID: clientID) else {
            return .failure(.invalidClientID)
        }
        guard let secret = app.clientSecret, request.parameter("client_secret") == secret else {
            return .failure(
                OAuthError(code: 400, error: "invalid_client", description: "Invalid client_id or client_secret"))
        }
        var minutes = 120
        if let text = request.parameter("expiration"), let requested = Int(text), requested > 0 { minutes = requested }
        minutes = min(minutes, context.configuration.maxTokenLifetimeMinutes)
        let token = context.tokens.issue(
            TokenRecord(
                username: "", kind: .app, expires: context.nowMilliseconds + Int64(minutes) * 60_000, ssl: true,
                clientID: app.clientId))
        context.counters.update {
            $0.clientCredentialsGrants += 1; $0.tokensIssued += 1
        }
        return .success(
            .object([
                ("access_token", .string(token)), ("expires_in", .int(Int64(minutes) * 60)),
            ]))
    }

    /// Issues an access token (and, with `refreshSeconds`, a refresh token) and returns the
    /// token response. `from` names an existing refresh token the access token belongs to.
    func issue(
        username: String, clientID: String, refreshSeconds: Int?, from existing: String? = nil,
        accessSeconds: Int? = nil
    ) -> JSONValue {
        let now = context.nowMilliseconds
        let refreshToken =
            refreshSeconds.map {
                issueRefreshToken(username: username, clientID: clientID, seconds: $0, now: now)
            } ?? existing
        let seconds = accessSeconds ?? context.oauthAccessTokenLifetimeSeconds
        let access = issueAccessToken(username: username, seconds: seconds, refreshToken: refreshToken, now: now)
        var members: [(String, JSONValue)] = [
            ("access_token", .string(access)), ("expires_in", .int(Int64(seconds))),
            ("username", .string(username)), ("ssl", .bool(true)),
        ]
        if let refreshSeconds, let refreshToken {
            members.append(("refresh_token", .string(refreshToken)))
            members.append(("refresh_token_expires_in", .int(Int64(refreshSeconds))))
        }
        return .object(members)
    }

    /// Issues a refresh token and an access token belonging to it, as a sign-in does, and
    /// returns both (what ``issue(username:clientID:refreshSeconds:from:accessSeconds:)`` puts
    /// in its token response).
    func issueTokens(
        username: String, clientID: String, refreshSeconds: Int, accessSeconds: Int? = nil
    )
        -> (accessToken: String, refreshToken: String)
    {
        let now = context.nowMilliseconds
        let refreshToken = issueRefreshToken(username: username, clientID: clientID, seconds: refreshSeconds, now: now)
        let access = issueAccessToken(
            username: username, seconds: accessSeconds ?? context.oauthAccessTokenLifetimeSeconds,
            refreshToken: refreshToken, now: now)
        return (access, refreshToken)
    }

    /// Remembers a new refresh token valid for `seconds` from `now` (epoch milliseconds).
    private func issueRefreshToken(username: String, clientID: String, seconds: Int, now: Int64) -> String {
        context.grants.issueRefreshToken(
            RefreshTokenGrant(
                username: username, clientID: clientID, expires: now + Int64(seconds) * 1000))
    }

    /// Issues (and counts) an OAuth access token valid for `seconds` from `now`, tied to `refreshToken`.
    private func issueAccessToken(username: String, seconds: Int, refreshToken: String?, now: Int64) -> String {
        let access = context.tokens.issue(
            TokenRecord(
                username: username, kind: .oauth, expires: now + Int64(seconds) * 1000, ssl: true,
                refreshToken: refreshToken))
        context.counters.update { $0.tokensIssued += 1 }
        return access
    }

    /// BASE64URL(SHA256(ASCII(verifier))) without padding (RFC 7636 §4.2).
    static func s256(_ verifier: String) -> String {
        FormCoding.base64URL(SHA256.hash(data: Data(verifier.utf8)))
    }
}
