import Logging
public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A user signed in to a Microsoft Entra Application Proxy: Entra's access token, ID token and
/// refresh token, presented as `Authorization: Bearer` on every request to a host behind the
/// proxy (and to no other host).
///
/// The ``AuthenticationManager`` refreshes it with the refresh token before it expires, once
/// across tasks and processes. ``AuthenticationManager/invalidateIAPCredentials(for:userAgent:)``
/// opens ``logoutURL`` and removes it.
public struct IAPCredential: IAPAuthorizationCredential, Equatable {
    /// `iap`.
    public static let kind = "iap"
    /// The configuration the user signed in with.
    public let configuration: IAPConfiguration
    /// The redirect URI the sign-in used.
    public let redirectURI: String
    /// The access token and its expiry.
    public let accessToken: TokenInfo
    /// The ID token and its expiry, when `openid` was asked for.
    public let idToken: TokenInfo?
    /// The refresh token, when `offline_access` was asked for (secret).
    public let refreshToken: String?
    /// The scopes Entra granted.
    public let grantedScopes: [String]
    /// The user (`preferred_username` of the ID token), when known.
    public let username: String?

    /// Creates a credential from its parts.
    public init(
        configuration: IAPConfiguration, redirectURI: String, accessToken: TokenInfo, idToken: TokenInfo?,
        refreshToken: String?,
        grantedScopes: [String], username: String?
    ) {
        self.configuration = configuration
        self.redirectURI = redirectURI
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.grantedScopes = grantedScopes
        self.username = username
    }

    /// The token presented to the proxy (``IAPConfiguration/bearerToken``).
    public var tokenInfo: TokenInfo {
        configuration.bearerToken == .idToken ? (idToken ?? accessToken) : accessToken
    }

    /// The token endpoint and client ID.
    public var iapIdentifier: String { configuration.iapIdentifier }

    /// Whether `url` is behind the proxy.
    public func canBeUsed(for url: URL) -> Bool { configuration.canBeUsed(for: url) }

    /// Entra's sign-out page.
    public var logoutURL: URL? { configuration.logoutURL }

    /// An identity-aware proxy sign-in (the configuration file's path is not kept with the credential).
    public var howToSignIn: PortalAuthError.SignIn { .identityAwareProxy() }

    /// Signs out: removes the credential from `store`, then shows Entra's ``logoutURL`` through
    /// `userAgent` (the browser), as ``IAPCredentialStore/invalidate(_:userAgent:)`` does for
    /// every IAP credential (this is that call).
    public func invalidate(userAgent: any AuthorizationUserAgent, store: IAPCredentialStore) async throws {
        try await store.invalidate(self, userAgent: userAgent)
    }

    /// Signs a user in at Entra ID: the browser part through the authorization code flow (PKCE,
    /// the configured scopes and prompt), then the code is redeemed at `token_url`.
    public static func credential(
        for configuration: IAPConfiguration, userAgent: any AuthorizationUserAgent,
        services: AuthenticationServices
    ) async throws -> IAPCredential {
        let request = AuthorizationCodeRequest(
            authorizeURL: configuration.authorizeURL, clientID: configuration.clientID,
            redirect: configuration.redirect,
            scopes: configuration.scopes, prompt: configuration.authorizationPromptType, timeout: configuration.timeout)
        let grant = try await AuthorizationCodeFlow.authorize(request, userAgent: userAgent, logger: services.logger)
        var parameters = grant.tokenParameters(clientID: configuration.clientID)
        if !configuration.scopes.isEmpty { parameters.append(("scope", configuration.scopes.joined(separator: " "))) }
        let response: EntraTokenResponse
        do {
            response = try await EntraTokenEndpoint(url: configuration.tokenURL).request(parameters, services: services)
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            throw PortalAuthError(
                .authenticationFailed, "\(error.message); nothing was stored", remedy: .signIn(.identityAwareProxy()),
                cause: error.cause)
        }
        services.logger.debug(
            "iap sign-in complete", metadata: ["identity provider": "\(ServerContext.describe(configuration.tokenURL))"]
        )
        return IAPCredential(
            configuration: configuration, redirectURI: grant.redirectURI, accessToken: response.accessToken,
            idToken: response.idToken,
            refreshToken: response.refreshToken, grantedScopes: response.scopes, username: response.username)
    }

    /// Refreshes the tokens with the refresh token (Entra rotates it). Returns nil without a
    /// refresh token or when Entra rejects it (`invalid_grant`): a new sign-in is needed.
    public func renewed(using services: AuthenticationServices) async throws -> (any IAPAuthorizationCredential)? {
        guard let refreshToken else { return nil }
        var parameters = [
            ("grant_type", "refresh_token"), ("client_id", configuration.clientID), ("refresh_token", refreshToken),
        ]
        if !configuration.scopes.isEmpty { parameters.append(("scope", configuration.scopes.joined(separator: " "))) }
        services.logger.debug(
            "refreshing iap token", metadata: ["identity provider": "\(ServerContext.describe(configuration.tokenURL))"]
        )
        do {
            let response = try await EntraTokenEndpoint(url: configuration.tokenURL).request(
                parameters, services: services)
            return IAPCredential(
                configuration: configuration, redirectURI: redirectURI, accessToken: response.accessToken,
                // A refresh without a new ID token: an old one would expire as before and be refreshed on every use.
                idToken: response.idToken ?? (configuration.bearerToken == .idToken ? nil : idToken),
                refreshToken: response.refreshToken ?? refreshToken,
                grantedScopes: response.scopes.isEmpty ? grantedScopes : response.scopes,
                username: response.username ?? username)
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            services.logger.info("iap refresh token rejected; a new sign-in is needed")
            return nil
        }
    }

    /// With a refresh token it renews itself (its end is not known); without one it ends with its
    /// access token.
    public var renewal: CredentialRenewal {
        refreshToken == nil ? .cannotRenew(endsAt: tokenInfo.expirationDate) : .renewsItself
    }
}

/// Entra ID's v2.0 token response.
package struct EntraTokenResponse {
    /// The access token and its expiry (`expires_in`).
    package var accessToken: TokenInfo
    /// The ID token and its expiry (its `exp` claim), when one came.
    package var idToken: TokenInfo?
    /// The refresh token, when one came.
    package var refreshToken: String?
    /// The scopes granted (`scope`).
    package var scopes: [String]
    /// The user (`preferred_username` or `upn` of the ID token).
    package var username: String?
}

/// Entra ID's token endpoint: form POST, JSON answer; errors come as HTTP 400 with
/// `{"error","error_description","error_codes",...}`.
package struct EntraTokenEndpoint {
    let url: URL

    func request(_ parameters: [(String, String)], services: AuthenticationServices) async throws -> EntraTokenResponse
    {
        let where_ = ServerContext.describe(url)
        var request = TransportRequest(
            url: url, method: .post, body: Array(FormEncoding.encode(parameters).utf8),
            maxResponseSize: TransportRequest.maxJSONResponseSize)
        request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        request.setHeader("Accept", "application/json")
        let response: TransportResponse
        do {
            response = try await services.transport.send(request, options: TransportOptions())
        } catch let challenge as TransportChallengeError {
            throw challenge.error
        }
        return try Self.tokenResponse(status: response.status, body: response.body, from: where_, at: Date())
    }

    /// Reads Entra's answer (`status`, `body`) from `where_`, received at `now`: an OAuth error,
    /// an HTTP error, or the tokens (the access token usable and not expired).
    package static func tokenResponse(
        status: Int, body: [UInt8], from where_: String, at now: Date
    ) throws -> EntraTokenResponse {
        let json = try? JSONValue.parse(body, source: where_)
        if let error = json?["error"]?.stringValue {
            let description = json?["error_description"]?.stringValue.map { Self.firstSentence($0) } ?? ""
            let code: PortalAuthError.Code =
                ["invalid_grant", "invalid_client", "unauthorized_client", "interaction_required"].contains(error)
                ? .authenticationFailed : .invalidResponse
            throw PortalAuthError(
                code, "\(where_) refused the token request (\(error)\(description.isEmpty ? "" : ": " + description))",
                cause: .oauth(error: error, description: json?["error_description"]?.stringValue))
        }
        guard (200..<300).contains(status) else {
            throw PortalAuthError(
                .httpError,
                "\(where_) answered HTTP \(status): token_url is wrong, or the identity provider is failing",
                remedy: status >= 500 ? .retryLater : .fixConfiguration(file: nil, key: "token_url"),
                cause: .httpStatus(status))
        }
        guard let json, let access = json["access_token"]?.stringValue, !access.isEmpty else {
            throw PortalAuthError(
                .invalidResponse,
                "\(where_) answered without an access token: token_url is not a token endpoint, or the app "
                    + "registration does not allow this grant",
                remedy: .fixConfiguration(file: nil, key: "token_url"))
        }
        let expiresIn = try json.lifetime("expires_in", from: where_, unit: .secondsFromNow) ?? 3600
        let expiry = now.addingTimeInterval(expiresIn)
        let idToken = json["id_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        // The ID token may be what goes in `Authorization: Bearer` (bearer_token id_token).
        if let idToken, !TokenInfo.isUsableToken(idToken) {
            throw PortalAuthError(
                .invalidResponse,
                "\(where_) sent an ID token with control characters (CR, LF or NUL), unfit for an HTTP header: not "
                    + "used or stored",
                remedy: .reportToAdministrator(server: where_))
        }
        let claims = idToken.flatMap(Self.claims)
        let exp = try claims?.lifetime("exp", from: where_, unit: .secondsSince1970)
        let idExpiry = exp.map { Date(timeIntervalSince1970: $0) } ?? expiry
        return EntraTokenResponse(
            accessToken: try TokenInfo(accessToken: access, expirationDate: expiry, isSSLRequired: true)
                .checkedAsIssued(by: where_, at: now),
            idToken: idToken.map { TokenInfo(accessToken: $0, expirationDate: idExpiry, isSSLRequired: true) },
            refreshToken: json["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            scopes: json["scope"]?.stringValue?.split(separator: " ").map(String.init) ?? [],
            username: claims?["preferred_username"]?.stringValue ?? claims?["upn"]?.stringValue)
    }

    /// The payload of a JWT, decoded (not verified: it only names the user and the expiry).
    static func claims(_ jwt: String) -> JSONValue? {
        let parts = jwt.split(separator: ".")
        guard parts.count >= 2 else { return nil }
        var base64 = String(parts[1]).replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONValue.parse(Array(data), source: "id_token")
    }

    /// Entra descriptions run on with trace IDs and timestamps; the first sentence says what happened.
    static func firstSentence(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        if let range = line.firstRange(of: ". Trace ID") { return String(line[..<range.lowerBound]) + "." }
        return line
    }
}
