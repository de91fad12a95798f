import Foundation

/// An emulated Microsoft Entra ID (v2.0 endpoints) at `/entra/{tenant}/oauth2/v2.0/...`:
/// `authorize` (sign-in page, PKCE S256, `prompt`), `token` (authorization_code and
/// refresh_token grants, Entra-shaped JSON errors with HTTP 400) and `logout`.
struct EntraIdentityProvider: Sendable {
    let context: EmulatorContext

    /// The prompts Entra knows.
    static let prompts: Set<String> = ["login", "none", "consent", "select_account"]

    /// `rest` is the path after `/entra`: `{tenant}/oauth2/v2.0/{operation}`.
    func handle(_ request: IncomingRequest, rest: [String]) -> OutgoingResponse {
        let lower = rest.map { $0.lowercased() }
        guard lower.count == 4, lower[1] == "oauth2", lower[2] == "v2.0" else { return .notFound(request.path) }
        guard rest[0] == context.configuration.entraTenant else {
            return Self.errorPage("AADSTS90002: Tenant '\(rest[0])' not found.")
        }
        switch lower[3] {
        case "authorize": return authorize(request)
        case "token": return token(request)
        case "logout":
            context.counters.update { $0.entraLogouts += 1 }
            return .html(
                Rendering.htmlPage(
                    title: "Signed out",
                    body: "<h1>You signed out of your account</h1><p>It's a good idea to close all browser windows.</p>"
                ))
        default: return .notFound(request.path)
        }
    }

    /// `{baseURL}/entra/{tenant}`: where the tenant's issuer and endpoints live.
    private var tenantURL: String { context.urls.baseURL + "/entra/\(context.configuration.entraTenant)" }

    /// The issuer, as in the tokens' `iss` claim.
    var issuer: String { tenantURL + "/v2.0" }

    /// The v2.0 endpoints' prefix: `{endpointsURL}/authorize`, `/token`, `/logout`.
    var endpointsURL: String { tenantURL + "/oauth2/v2.0" }

    /// The authorize URL the proxy sends unauthenticated browsers to.
    var authorizeURL: String { endpointsURL + "/authorize" }

    private func app(_ clientID: String?) -> EmulatorApp? {
        guard let clientID else { return nil }
        return context.configuration.entraApps.first { $0.clientId == clientID }
    }

    // MARK: authorize

    private func authorize(_ request: IncomingRequest) -> OutgoingResponse {
        context.counters.update {
            $0.entraAuthorizeRequests += 1; $0.entraLastPrompt = request.parameter("prompt") ?? ""
        }
        guard let clientID = request.parameter("client_id"), let app = app(clientID) else {
            return Self.errorPage(
                "AADSTS700016: Application with identifier '\(request.parameter("client_id") ?? "")' was not found in the directory '\(context.configuration.entraTenant)'."
            )
        }
        guard let redirectURI = request.parameter("redirect_uri"), app.allows(redirectURI: redirectURI) else {
            return Self.errorPage(
                "AADSTS50011: The redirect URI '\(request.parameter("redirect_uri") ?? "")' specified in the request does not match the redirect URIs configured for the application '\(clientID)'."
            )
        }
        let state = request.parameter("state")
        func fail(_ error: String, _ description: String) -> OutgoingResponse {
            .redirect(to: redirectURI, adding: [("error", error), ("error_description", description)], state: state)
        }
        guard request.parameter("response_type") == "code" else {
            return fail("unsupported_response_type", "AADSTS700054: response_type 'code' is required.")
        }
        guard let challenge = request.parameter("code_challenge"), request.parameter("code_challenge_method") == "S256"
        else {
            return fail(
                "invalid_request",
                "AADSTS9002325: Proof Key for Code Exchange is required for cross-origin authorization code redemption (code_challenge with S256)."
            )
        }
        if let prompt = request.parameter("prompt") {
            guard Self.prompts.contains(prompt) else {
                return fail("invalid_request", "AADSTS90023: Invalid prompt value '\(prompt)'.")
            }
            // The emulator keeps no browser session, so a silent sign-in never succeeds.
            if prompt == "none" {
                return fail(
                    "login_required", "AADSTS50058: A silent sign-in request was sent but no user is signed in.")
            }
        }
        guard request.method == "POST", let action = request.parameter("action") else {
            return .html(signInPage(request, app: app, message: nil))
        }
        guard action == "approve" else {
            return fail("access_denied", "AADSTS65004: User declined to consent to access the app.")
        }
        guard let name = request.parameter("username"), let user = user(named: name),
            user.password == request.parameter("password")
        else {
            return .html(signInPage(request, app: app, message: "Your account or password is incorrect."))
        }
        let code = context.entra.grants.issueCode(
            AuthorizationCodeGrant(
                clientID: app.clientId, redirectURI: redirectURI, codeChallenge: challenge, username: user.username,
                expires: context.nowMilliseconds + Int64(context.configuration.authorizationCodeLifetimeSeconds)
                    * 1000,
                expirationMinutes: nil, scope: request.parameter("scope") ?? ""))
        return .redirect(to: redirectURI, adding: [("code", code)], state: state)
    }

    /// Users sign in with their username or their email address.
    private func user(named name: String) -> EmulatorUser? {
        context.user(named: name) ?? context.configuration.users.first { $0.email.lowercased() == name.lowercased() }
    }

    private func signInPage(_ request: IncomingRequest, app: EmulatorApp, message: String?) -> String {
        let form = Rendering.signInForm(
            request, action: request.path,
            carried: [
                "client_id", "response_type", "redirect_uri", "state", "scope", "code_challenge",
                "code_challenge_method", "prompt",
            ],
            usernameLabel: "Email, phone, or Skype", message: message)
        return Rendering.htmlPage(
            title: "Sign in to your account",
            body: """
                <h1>Sign in</h1>
                <p>to continue to \(Rendering.escapeHTML(app.name))</p>
                \(form)
                """)
    }

    // MARK: token

    private func token(_ request: IncomingRequest) -> OutgoingResponse {
        guard request.isSecure, request.method == "POST" else {
            return tokenError(
                "invalid_request", 900561, "AADSTS900561: The endpoint only accepts POST requests over HTTPS.")
        }
        guard let clientID = request.parameter("client_id"), let app = app(clientID) else {
            return tokenError(
                "unauthorized_client", 700016,
                "AADSTS700016: Application with identifier '\(request.parameter("client_id") ?? "")' was not found in the directory '\(context.configuration.entraTenant)'."
            )
        }
        switch request.parameter("grant_type") {
        case "authorization_code":
            return redeemCode(request, app: app)
        case "refresh_token":
            return redeemRefreshToken(request, app: app)
        case let other:
            return tokenError(
                "unsupported_grant_type", 70003,
                "AADSTS70003: The app requested an unsupported grant type '\(other ?? "")'.")
        }
    }

    /// The authorization code grant: the code must be unused, unexpired, `app`'s, sent with the
    /// redirect URI it was issued for and the PKCE verifier of its challenge.
    private func redeemCode(_ request: IncomingRequest, app: EmulatorApp) -> OutgoingResponse {
        guard let code = request.parameter("code") else {
            return tokenError(
                "invalid_request", 900144,
                "AADSTS900144: The request body must contain the following parameter: 'code'.")
        }
        guard let grant = context.entra.grants.redeemCode(code), grant.clientID == app.clientId else {
            return tokenError(
                "invalid_grant", 70000, "AADSTS70000: The provided authorization code is invalid or has been used.")
        }
        guard grant.expires > context.nowMilliseconds else {
            return tokenError(
                "invalid_grant", 70008,
                "AADSTS70008: The provided authorization code or refresh token has expired due to inactivity.")
        }
        guard request.parameter("redirect_uri") == grant.redirectURI else {
            return tokenError(
                "invalid_grant", 50011, "AADSTS50011: The redirect URI does not match the one the code was issued for.")
        }
        guard let verifier = request.parameter("code_verifier"), (43...128).contains(verifier.count),
            OAuthTokenService.s256(verifier) == grant.codeChallenge
        else {
            return tokenError(
                "invalid_grant", 501481,
                "AADSTS501481: The Code_Verifier does not match the code_challenge supplied in the authorization request."
            )
        }
        let scope = request.parameter("scope") ?? grant.scope ?? ""
        context.counters.update { $0.entraAuthorizationCodeGrants += 1 }
        return .json(issue(username: grant.username, app: app, scope: scope))
    }

    /// The refresh token grant: the token must be live and `app`'s; Entra rotates refresh tokens,
    /// so the new one replaces it.
    private func redeemRefreshToken(_ request: IncomingRequest, app: EmulatorApp) -> OutgoingResponse {
        guard let refresh = request.parameter("refresh_token"),
            let grant = context.entra.grants.refreshToken(refresh),
            grant.clientID == app.clientId
        else {
            return tokenError(
                "invalid_grant", 9002313,
                "AADSTS9002313: Invalid request. Request is malformed or invalid (refresh_token).")
        }
        guard grant.expires > context.nowMilliseconds else {
            return tokenError("invalid_grant", 700082, "AADSTS700082: The refresh token has expired due to inactivity.")
        }
        context.entra.grants.revokeRefreshToken(refresh)
        context.counters.update { $0.entraRefreshTokenGrants += 1 }
        return .json(
            issue(username: grant.username, app: app, scope: request.parameter("scope") ?? "offline_access openid"))
    }

    /// A token response: access token, ID token with `openid`, refresh token with `offline_access`.
    func issue(username: String, app: EmulatorApp, scope: String) -> JSONValue {
        let scopes = scope.split(separator: " ").map(String.init)
        let lifetime = context.entraTokenLifetimeSeconds
        let now = context.nowMilliseconds
        let expires = now + Int64(lifetime) * 1000
        let user = context.user(named: username)
        let identity: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("tid", .string(context.configuration.entraTenant)),
            ("sub", .string("sub-" + username)),
            ("name", .string(user?.fullName ?? username)), ("preferred_username", .string(user?.email ?? username)),
            ("iat", .int(now / 1000)), ("exp", .int(expires / 1000)),
        ]
        let access = context.entra.issue(
            EntraToken(kind: .access, username: username, clientID: app.clientId, expires: expires),
            claims: [("aud", .string(app.clientId)), ("scp", .string(scope))] + identity)
        var members: [(String, JSONValue)] = [
            ("token_type", .string("Bearer")), ("scope", .string(scope)), ("expires_in", .int(Int64(lifetime))),
            ("ext_expires_in", .int(Int64(lifetime))), ("access_token", .string(access)),
        ]
        if scopes.contains("offline_access") {
            let refresh = context.entra.grants.issueRefreshToken(
                RefreshTokenGrant(
                    username: username, clientID: app.clientId,
                    expires: now + Int64(context.configuration.refreshTokenLifetimeSeconds) * 1000))
            members.append(("refresh_token", .string(refresh)))
        }
        if scopes.contains("openid") {
            let id = context.entra.issue(
                EntraToken(kind: .id, username: username, clientID: app.clientId, expires: expires),
                claims: [("aud", .string(app.clientId))] + identity)
            members.append(("id_token", .string(id)))
        }
        return .object(members)
    }

    private func tokenError(_ error: String, _ code: Int, _ description: String) -> OutgoingResponse {
        context.counters.update { $0.entraTokenErrors += 1 }
        let timestamp = ISO8601DateFormatter().string(from: context.clock.now)
        return .json(
            .object([
                ("error", .string(error)), ("error_description", .string(description + " Trace ID: emulator")),
                ("error_codes", .array([.number(code)])), ("timestamp", .string(timestamp)),
                ("trace_id", .string(UUID().uuidString.lowercased())),
                ("correlation_id", .string(UUID().uuidString.lowercased())),
            ]), status: 400)
    }

    private static func errorPage(_ message: String) -> OutgoingResponse {
        .html(
            Rendering.htmlPage(
                title: "Sign in to your account",
                body: "<h1>Sorry, but we're having trouble signing you in.</h1><p>\(Rendering.escapeHTML(message))</p>"),
            status: 400)
    }
}
