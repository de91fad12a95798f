public import PortalAuth
import PortalAuthOAuthApplication
import PortalAuthToken

/// Answers the ArcGIS challenges of the environment's portal (and of the servers federated with
/// it, whose challenges name the portal) with the environment's credentials, in a manager whose
/// store is memory: nothing is written anywhere.
public struct EnvironmentSignInHandler: AuthenticationChallengeHandler {
    /// The environment's credential.
    public let credentials: EnvironmentCredentials

    /// A handler signing in with `credentials`.
    public init(credentials: EnvironmentCredentials) { self.credentials = credentials }

    /// What the environment's sign-ins make.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] {
        [TokenCredential.self, OAuthApplicationCredential.self]
    }

    /// ArcGIS challenges for the environment's portal.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .arcGIS(let arcGIS) = challenge else { return false }
        return credentials.isPortal(arcGIS.serverContext)
    }

    /// Signs in as the environment says: a password at the token service, or the app's client
    /// credentials at `oauth2/token`. Both renew themselves in this process when they expire.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        // A secret from a file is read again if the file changed (a rotation) since last read.
        try credentials.source.secret.refresh()
        do {
            return try await signIn(challenge, services: services)
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            // Refused: the file may have been rotated a moment ago (read it now, settled or not).
            if try credentials.source.secret.refresh(now: .max) {
                if let retried = try? await signIn(challenge, services: services) { return retried }
            }
            // Signing in again with login would not help: the variables are what to fix.
            let variables = credentials.source.variables
            throw PortalAuthError(
                .authenticationFailed,
                "\(credentials.portal) refused the credentials in \(variables.joined(separator: " and "))",
                remedy: .fixEnvironment(variables: variables), cause: error.cause)
        }
    }

    /// Signs in with the environment's credential.
    private func signIn(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        switch credentials.source {
        case .password(let username, let password):
            let provider = StaticUsernamePasswordProvider(username: username, password: password.secret)
            // (No password kept in the token: it renews through EnvironmentRenewal, from the file as it is now.)
            return try await TokenAuthenticationHandler(provider: provider, keepPassword: false).handle(
                challenge, services: services)
        case .clientCredentials(let clientID, let clientSecret):
            let credential = try await OAuthApplicationCredential.credential(
                for: credentials.portal, clientID: clientID, clientSecret: clientSecret.secret, services: services)
            return .continueWithCredential(.arcGIS(credential))
        case .apiKey:
            // The key was in the store from the start: asked again, the server refused it.
            throw PortalAuthError(
                .authenticationFailed,
                "\(credentials.portal) refused the API key in \(credentials.source.variables[0])",
                remedy: .fixEnvironment(variables: credentials.source.variables))
        }
    }
}
