import Foundation

/// `oauth2/authorize`, `oauth2/signin` and `oauth2/approval`: the portal's sign-in page, consent,
/// and the out-of-band approval page, for the authorization code flow (with PKCE, or a
/// confidential app's secret at redemption) and the implicit flow (`response_type=token`).
///
/// The sign-in page carries `var oAuthInfo = {...}` with an `oauth_state`, as real portals do;
/// posting `oauth_state`, `username` and `password` to `/sharing/oauth2/signin` signs in, which is
/// what the ArcGIS API for Python does. Browsers post the page's form back to `oauth2/authorize`.
struct AuthorizePage: Sendable {
    let context: EmulatorContext

    /// The redirect URI that shows the code on the approval page instead of redirecting.
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"

    /// The outcome of checking an authorize request.
    private enum Check {
        /// The answer to send instead of a sign-in page (error page or error redirect).
        case refused(OutgoingResponse)
        /// A valid request from `app`.
        case accepted(EmulatorApp, PendingSignIn)
    }

    /// GET shows the sign-in page; POST (the form) signs in and approves or denies.
    func authorize(_ request: IncomingRequest) -> OutgoingResponse {
        if request.parameter("f")?.lowercased() == "json" {
            context.counters.update { $0.authorizeJSONRequests += 1 }
        } else {
            context.counters.update { $0.authorizeRequests += 1 }
        }
        let app: EmulatorApp
        let pending: PendingSignIn
        switch check(request) {
        case .refused(let response): return response
        case .accepted(let checkedApp, let checked): (app, pending) = (checkedApp, checked)
        }
        guard request.method == "POST", let action = request.parameter("action") else {
            return signInPage(request, app: app, pending: pending, oauthState: nil, message: nil)
        }
        guard action == "approve" else {
            return redirect(
                pending.redirectURI, error: "access_denied", description: "The user denied your request.",
                state: pending.state)
        }
        guard let user = signedInUser(request) else {
            return signInPage(request, app: app, pending: pending, oauthState: nil, message: Self.badCredentials)
        }
        return complete(pending, user: user)
    }

    /// `POST /sharing/oauth2/signin` with `oauth_state`, `username` and `password`: finishes the
    /// sign-in the page's `oAuthInfo` started (a redirect to the app), or shows the page again with
    /// the reason in `oAuthInfo.messages`.
    func signIn(_ request: IncomingRequest) -> OutgoingResponse {
        guard request.method == "POST" else {
            return .text("Method \(request.method) not allowed on \(request.path)\n", status: 405)
        }
        guard let key = request.parameter("oauth_state"), let pending = context.grants.pendingSignIn(key),
            let app = context.app(clientID: pending.clientID)
        else {
            return Self.errorPage(
                "Invalid oauth_state",
                detail: "The sign-in expired or was already finished. Start it again from the application.")
        }
        guard let user = signedInUser(request) else {
            return signInPage(request, app: app, pending: pending, oauthState: key, message: Self.badCredentials)
        }
        context.grants.finishSignIn(key)
        return complete(pending, user: user)
    }

    /// The out-of-band approval page: the code in the title, as the ArcGIS Python API expects.
    func approval(_ request: IncomingRequest) -> OutgoingResponse {
        if let code = request.parameter("code") {
            return .html(
                Rendering.htmlPage(
                    title: "SUCCESS code=\(code)",
                    body: """
                        <script>var oAuthInfo = {"messages":[]};</script>
                        <h1>Signed in</h1>
                        <p>Copy this code and paste it into the application:</p>
                        <pre id="code">\(Rendering.escapeHTML(code))</pre>
                        """))
        }
        if request.parameter("error") == nil {
            return .html(
                Rendering.htmlPage(
                    title: "SUCCESS", body: "<h1>Signed in</h1><p>You can close this window.</p>"))
        }
        let error = request.parameter("error") ?? "invalid_request"
        let description = request.parameter("error_description") ?? ""
        return .html(
            Rendering.htmlPage(
                title: "DENIED error=\(error)",
                body: "<h1>Not signed in</h1><p>\(Rendering.escapeHTML(description))</p>"))
    }

    static let badCredentials = "Invalid username or password."

    /// Checks client, redirect URI, response type and PKCE; errors the app may see go to its redirect URI.
    private func check(_ request: IncomingRequest) -> Check {
        // As a portal does: an unknown app or redirect URI is answered at once, never with a sign-in
        // page; with f=json as ArcGIS's JSON error (HTTP 400), otherwise as an HTML error page.
        guard let clientID = request.parameter("client_id"), let app = context.app(clientID: clientID) else {
            return .refused(
                Self.refusal(
                    request, "Invalid client_id", detail: "The application is not registered with this portal."))
        }
        let portalBase = context.urls(for: request).baseURL
        guard let redirectURI = request.parameter("redirect_uri"),
            app.allows(redirectURI: redirectURI, portalBaseURL: portalBase)
        else {
            return .refused(
                Self.refusal(
                    request, "Invalid redirect_uri",
                    detail: "The redirect URI is not registered for the application \(app.name)."))
        }
        let state = request.parameter("state")
        let responseType = request.parameter("response_type") ?? ""
        guard responseType == "code" || responseType == "token" else {
            return .refused(
                redirect(
                    redirectURI, error: "unsupported_response_type", description: "response_type must be code or token",
                    state: state))
        }
        let challenge = request.parameter("code_challenge")
        if let problem = pkceProblem(request, app: app, responseType: responseType) {
            return .refused(redirect(redirectURI, error: "invalid_request", description: problem, state: state))
        }
        let expirationMinutes = request.parameter("expiration").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        return .accepted(
            app,
            PendingSignIn(
                clientID: app.clientId, redirectURI: redirectURI, responseType: responseType, state: state,
                codeChallenge: challenge, expirationMinutes: expirationMinutes))
    }

    /// Why the PKCE parameters are not acceptable, or nil. Public apps need S256 PKCE for the code
    /// flow, except the built-in ones (the ArcGIS API for Python sends none).
    private func pkceProblem(_ request: IncomingRequest, app: EmulatorApp, responseType: String) -> String? {
        let challenge = request.parameter("code_challenge")
        if let method = request.parameter("code_challenge_method"), method != "S256" {
            return "code_challenge_method must be S256"
        }
        if challenge == nil, responseType == "code", app.clientSecret == nil, !app.isBuiltIn {
            return "code_challenge is required for this application"
        }
        if let challenge, !(43...128).contains(challenge.count) { return "Invalid code_challenge" }
        return nil
    }

    /// The member whose username and password the request carries, if they match.
    private func signedInUser(_ request: IncomingRequest) -> EmulatorUser? {
        guard let username = request.parameter("username"), let user = context.user(named: username),
            user.password == request.parameter("password")
        else { return nil }
        return user
    }

    /// Signs `user` in: a code in the redirect's query, or (implicit) an access token in its fragment.
    private func complete(_ pending: PendingSignIn, user: EmulatorUser) -> OutgoingResponse {
        guard pending.responseType == "token" else {
            let code = context.grants.issueCode(
                AuthorizationCodeGrant(
                    clientID: pending.clientID, redirectURI: pending.redirectURI, codeChallenge: pending.codeChallenge,
                    username: user.username,
                    expires: context.nowMilliseconds + Int64(context.configuration.authorizationCodeLifetimeSeconds)
                        * 1000,
                    expirationMinutes: pending.expirationMinutes))
            return redirect(pending.redirectURI, parameters: [("code", code)], state: pending.state)
        }
        let maximum = context.configuration.maxTokenLifetimeMinutes * 60
        let seconds = min(pending.expirationMinutes.map { $0 * 60 } ?? context.oauthAccessTokenLifetimeSeconds, maximum)
        let token = context.tokens.issue(
            TokenRecord(
                username: user.username, kind: .oauth, expires: context.nowMilliseconds + Int64(seconds) * 1000,
                ssl: true))
        context.counters.update { $0.tokensIssued += 1 }
        var parameters = [
            ("access_token", token), ("expires_in", String(seconds)), ("username", user.username), ("ssl", "true"),
        ]
        if let state = pending.state { parameters.append(("state", state)) }
        let fragment = parameters.map { "\($0.0)=\(FormCoding.encode($0.1))" }.joined(separator: "&")
        return .redirect(to: target(for: pending.redirectURI) + "#" + fragment)
    }

    /// A redirect to the app with an error (RFC 6749 §4.1.2.1).
    private func redirect(_ redirectURI: String, error: String, description: String, state: String?) -> OutgoingResponse
    {
        redirect(redirectURI, parameters: [("error", error), ("error_description", description)], state: state)
    }

    /// A redirect to `redirectURI` (or to the approval page for out-of-band) with parameters and state.
    private func redirect(_ redirectURI: String, parameters: [(String, String)], state: String?) -> OutgoingResponse {
        .redirect(to: target(for: redirectURI), adding: parameters, state: state)
    }

    /// Where a redirect URI sends the browser: the approval page for out-of-band.
    private func target(for redirectURI: String) -> String {
        redirectURI == Self.outOfBand ? context.urls.portalURL + "/sharing/rest/oauth2/approval" : redirectURI
    }

    /// The sign-in page: `var oAuthInfo = {...}` (one line, the page's first braces) with a fresh
    /// or the given `oauth_state`, and a form whose hidden fields carry every authorize parameter.
    private func signInPage(
        _ request: IncomingRequest, app: EmulatorApp, pending: PendingSignIn, oauthState: String?, message: String?
    ) -> OutgoingResponse {
        let key = oauthState ?? context.grants.issueSignInState(pending)
        var info: [(String, JSONValue)] = [
            ("oauth_state", .string(key)), ("client_id", .string(app.clientId)), ("appTitle", .string(app.name)),
            ("locale", .string("en")), ("isMfaEnabled", .bool(false)),
        ]
        if let message { info.append(("messages", .array([.string(message)]))) }
        let script = JSONValue.object(info).serialized(pretty: false)
            .replacingOccurrences(of: "<", with: "\\u003c")
        let form = Rendering.signInForm(
            request, action: "/portal/sharing/rest/oauth2/authorize",
            carried: [
                "client_id", "response_type", "redirect_uri", "state", "code_challenge", "code_challenge_method",
                "expiration",
            ],
            usernameLabel: "Username", message: message)
        return .html(
            Rendering.htmlPage(
                title: "Sign in to \(context.configuration.portalName)",
                body: """
                    <script>var oAuthInfo = \(script);</script>
                    <h1>Sign in to \(Rendering.escapeHTML(context.configuration.portalName))</h1>
                    <p>\(Rendering.escapeHTML(app.name)) would like to access your account.</p>
                    \(form)
                    """))
    }

    /// The page shown instead of a redirect when the app or redirect URI is not to be trusted.
    /// A refused authorize request: ArcGIS's JSON error with `f=json`, the HTML error page otherwise.
    private static func refusal(_ request: IncomingRequest, _ title: String, detail: String) -> OutgoingResponse {
        guard request.parameter("f")?.lowercased() == "json" else { return errorPage(title, detail: detail) }
        return .json(OAuthError.invalidRequest(title).json, status: 400)
    }

    private static func errorPage(_ title: String, detail: String) -> OutgoingResponse {
        .html(
            Rendering.htmlPage(
                title: "ERROR: \(title)",
                body: "<h1>\(Rendering.escapeHTML(title))</h1><p>\(Rendering.escapeHTML(detail))</p>"),
            status: 400)
    }
}
