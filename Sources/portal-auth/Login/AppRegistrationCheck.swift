import PortalAuth
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether the portal knows an app, asked before anyone waits for a browser: the authorize
/// endpoint answers an unknown `client_id` with an error at once (a known one with its sign-in
/// page), so a mistyped `--client-id` is one line now instead of a timeout five minutes later.
enum AppRegistrationCheck {
    /// Throws when the portal of `configuration` answers that it has no app `clientID`. Any other
    /// answer, or none (the network, TLS), lets the sign-in go on: it says what is wrong itself.
    static func requireKnownApp(_ configuration: OAuthUserConfiguration, transport: any HTTPTransport) async throws {
        guard let portal = try? configuration.portalContext,
            var components = URLComponents(string: portal.portalRESTURL + "/oauth2/authorize")
        else { return }
        components.queryItems = [
            URLQueryItem(name: "client_id", value: configuration.clientID),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "redirect_uri", value: configuration.redirectURL.absoluteString),
            URLQueryItem(name: "f", value: "json"),
        ]
        guard let url = components.url else { return }
        let request = TransportRequest(url: url, maxResponseSize: TransportRequest.maxJSONResponseSize)
        guard let response = try? await transport.send(request, options: TransportOptions()) else { return }
        guard refusesClientID(status: response.status, body: response.text) else { return }
        throw unknownApp(configuration.clientID, portal: portal)
    }

    /// Whether an answer of the authorize (or token) endpoint says the client ID is unknown:
    /// ArcGIS's JSON error, or its HTML error page, naming `client_id` as invalid.
    static func refusesClientID(status: Int, body: String) -> Bool {
        let text = body.prefix(64 * 1024).lowercased()
        let isError = status >= 400 || text.contains("\"error\"")
        return isError && (text.contains("invalid client_id") || text.contains("invalid_client_id"))
            && !text.contains("client_secret")
    }

    /// The one-line error: the portal knows no app with this client ID.
    static func unknownApp(_ clientID: String, portal: ServerContext) -> PortalAuthError {
        PortalAuthError(
            .authenticationFailed,
            "\(portal) knows no app with the client ID \(clientID) (the portal answered \"Invalid client_id\")",
            remedy: .checkAppRegistration(server: portal.url))
    }
}
