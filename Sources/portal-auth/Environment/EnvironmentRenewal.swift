import PortalAuth
import PortalAuthOAuthApplication
import PortalAuthToken

/// Renews the environment's sign-in unattended (before its token expires, and after the portal
/// refused it) with the environment's secret as it is now: a secret file that rotated is read
/// again first. Without it, a token the portal revoked could not be renewed in `serve`, and a
/// token renewing itself kept using the password it was made with.
struct EnvironmentRenewal: UnattendedRenewal {
    let credentials: EnvironmentCredentials

    func renewed(
        _ credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)? {
        guard credentials.isPortal(credential.serverContext) else { return nil }
        try credentials.source.secret.refresh()
        switch credentials.source {
        case .password(let username, let password):
            guard let token = credential as? TokenCredential else { return nil }
            return try await TokenCredential.credential(
                for: token.serverContext, tokenServiceURL: token.tokenServiceURL, username: username,
                password: password.secret, referer: token.referer,
                tokenExpirationMinutes: token.tokenExpirationMinutes, services: services)
        case .clientCredentials(let clientID, let secret):
            return try await OAuthApplicationCredential.credential(
                for: credentials.portal, clientID: clientID, clientSecret: secret.secret, services: services)
        case .apiKey:
            return nil
        }
    }
}
