/// The emulated Microsoft Entra Application Proxy: requests on the proxy's listener must carry
/// `Authorization: Bearer <token>` with a token the emulated Entra ID issued (access or ID token)
/// for the proxy's app. Without one the proxy sends the client to sign in (302 to the authorize
/// URL, as it does for browsers); with an unknown or expired one it answers 401 with
/// `WWW-Authenticate: Bearer`. Accepted requests go on to the portal and servers unchanged.
struct ApplicationProxyGate: Sendable {
    let context: EmulatorContext

    /// nil when the request may pass; otherwise the proxy's answer.
    func check(_ request: IncomingRequest) -> OutgoingResponse? {
        let provider = EntraIdentityProvider(context: context)
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer "),
            let presented = IncomingRequest.bearer(header)
        else {
            context.counters.update { $0.proxyRequestsByToken["none", default: 0] += 1 }
            let app = context.configuration.entraApps.first?.clientId ?? "iap-client"
            let callback = (context.urls.proxyBaseURL ?? context.urls.baseURL) + "/.proxy/callback"
            return .redirect(
                to: provider.authorizeURL,
                adding: [
                    ("client_id", app), ("response_type", "code"), ("scope", "openid"), ("redirect_uri", callback),
                ],
                state: nil)
        }
        guard let token = context.entra.valid(presented),
            token.clientID == context.configuration.entraApps.first?.clientId
        else {
            context.counters.update { $0.proxyRequestsByToken["rejected", default: 0] += 1 }
            var response = OutgoingResponse.html(
                Rendering.htmlPage(
                    title: "Unauthorized",
                    body: "<h1>401 Unauthorized</h1><p>The token presented to the application proxy is not valid.</p>"),
                status: 401)
            response.headers.append(
                ("WWW-Authenticate", "Bearer authorization_uri=\"\(provider.authorizeURL)\", error=\"invalid_token\""))
            return response
        }
        context.counters.update { $0.proxyRequestsByToken[token.kind.rawValue, default: 0] += 1 }
        return nil
    }
}
