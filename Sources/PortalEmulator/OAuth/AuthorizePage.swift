import Foundation

/// `oauth2/authorize` and `oauth2/approval`: the portal's sign-in page, consent, and the
/// out-of-band approval page.
struct AuthorizePage: Sendable {
    let context: EmulatorContext

    /// The redirect URI that shows the code on the approval page instead of redirecting.
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"

    /// GET shows the sign-in page; POST (the form) signs in and approves or denies.
    func authorize(_ request: IncomingRequest) -> OutgoingResponse {
        context.counters.update { $0.authorizeRequests += 1 }
        guard let clientID = request.parameter("client_id"), let app = context.app(clientID: clientID) else {
            return Self.errorPage("Invalid client_id", detail: "The application is not registered with this portal.")
        }
        guard let redirectURI = request.parameter("redirect_uri"), app.allows(redirectURI: redirectURI) else {
            return Self.errorPage(
                "Invalid redirect_uri",
                detail: "The redirect URI is not registered for the application \(app.name).")
        }
        let state = request.parameter("state")
        guard request.parameter("response_type") == "code" else {
            return redirect(
                redirectURI, error: "unsupported_response_type",
                description: "response_type must be code", state: state)
        }
        let challenge = request.parameter("code_challenge")
        if let method = request.parameter("code_challenge_method"), method != "S256" {
            return redirect(
                redirectURI, error: "invalid_request",
                description: "code_challenge_method must be S256", state: state)
        }
        if challenge == nil, app.clientSecret == nil {
            return redirect(
                redirectURI, error: "invalid_request",
                description: "code_challenge is required for this application", state: state)
        }
        if let challenge, !(43...128).contains(challenge.count) {
            return redirect(redirectURI, error: "invalid_request", description: "Invalid code_challenge", state: state)
        }
        guard request.method == "POST", let action = request.parameter("action") else {
            return .html(signInPage(request, app: app, message: nil))
        }
        guard action == "approve" else {
            return redirect(
                redirectURI, error: "access_denied", description: "The user denied your request.", state: state)
        }
        guard let username = request.parameter("username"), let user = context.user(named: username),
            user.password == request.parameter("password")
        else {
            return .html(signInPage(request, app: app, message: "Invalid username or password."))
        }
        let expirationMinutes = request.parameter("expiration").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        let code = context.grants.issueCode(
            AuthorizationCodeGrant(
                clientID: app.clientId, redirectURI: redirectURI, codeChallenge: challenge, username: user.username,
                expires: context.nowMilliseconds + Int64(context.configuration.authorizationCodeLifetimeSeconds)
                    * 1000,
                expirationMinutes: expirationMinutes))
        return redirect(redirectURI, parameters: [("code", code)], state: state)
    }

    /// The out-of-band approval page: the code in the title, as the ArcGIS Python API expects.
    func approval(_ request: IncomingRequest) -> OutgoingResponse {
        if let code = request.parameter("code") {
            return .html(
                Rendering.htmlPage(
                    title: "SUCCESS code=\(code)",
                    body: """
                        <h1>Signed in</h1>
                        <p>Copy this code and paste it into the application:</p>
                        <pre id="code">\(Rendering.escapeHTML(code))</pre>
                        """))
        }
        let error = request.parameter("error") ?? "invalid_request"
        let description = request.parameter("error_description") ?? ""
        return .html(
            Rendering.htmlPage(
                title: "DENIED error=\(error)",
                body: "<h1>Not signed in</h1><p>\(Rendering.escapeHTML(description))</p>"))
    }

    /// A redirect to the app with an error (RFC 6749 §4.1.2.1).
    private func redirect(_ redirectURI: String, error: String, description: String, state: String?) -> OutgoingResponse
    {
        redirect(redirectURI, parameters: [("error", error), ("error_description", description)], state: state)
    }

    /// A redirect to `redirectURI` (or to the approval page for out-of-band) with parameters and state.
    private func redirect(_ redirectURI: String, parameters: [(String, String)], state: String?) -> OutgoingResponse {
        let target =
            redirectURI == Self.outOfBand
            ? context.urls.portalURL + "/sharing/rest/oauth2/approval"
            : redirectURI
        return .redirect(to: target, adding: parameters, state: state)
    }

    /// The sign-in form: every authorize parameter travels along as a hidden field.
    private func signInPage(_ request: IncomingRequest, app: EmulatorApp, message: String?) -> String {
        let form = Rendering.signInForm(
            request, action: "/portal/sharing/rest/oauth2/authorize",
            carried: [
                "client_id", "response_type", "redirect_uri", "state", "code_challenge", "code_challenge_method",
                "expiration",
            ],
            usernameLabel: "Username", message: message)
        return Rendering.htmlPage(
            title: "Sign in to \(context.configuration.portalName)",
            body: """
                <h1>Sign in to \(Rendering.escapeHTML(context.configuration.portalName))</h1>
                <p>\(Rendering.escapeHTML(app.name)) would like to access your account.</p>
                \(form)
                """)
    }

    /// The page shown instead of a redirect when the app or redirect URI is not to be trusted.
    private static func errorPage(_ title: String, detail: String) -> OutgoingResponse {
        .html(
            Rendering.htmlPage(
                title: "ERROR: \(title)",
                body: "<h1>\(Rendering.escapeHTML(title))</h1><p>\(Rendering.escapeHTML(detail))</p>"),
            status: 400)
    }
}
