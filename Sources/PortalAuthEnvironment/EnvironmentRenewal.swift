public import PortalAuth
import PortalAuthOAuthApplication
import PortalAuthToken

/// Renews the environment's sign-in unattended (before its token expires, and after the portal
/// refused it) with the environment's secret as it is now: a secret file that rotated is read
/// again first, and once more, settled or not, when the portal refuses it. Without it, a token the
/// portal revoked could not be renewed in `serve`, and a token renewing itself kept using the
/// password it was made with (the environment's tokens keep no password: they renew here).
public struct EnvironmentRenewal: UnattendedRenewal {
    /// The environment's credential.
    public let credentials: EnvironmentCredentials

    /// A renewal signing in with `credentials` as they are when it runs.
    public init(credentials: EnvironmentCredentials) { self.credentials = credentials }

    /// A fresh credential for `credential` when it is the environment portal's, signed in with the
    /// secret as it is now; nil for any other credential (another renewal is not this one's).
    public func renewed(
        _ credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)? {
        guard credentials.isPortal(credential.serverContext) else { return nil }
        try credentials.source.secret.refresh()
        do {
            return try await signIn(renewing: credential, services: services)
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            // Refused: the file may have been rewritten a moment ago (read it now, settled or not).
            guard try credentials.source.secret.refresh(now: .max) else { throw error }
            return try await signIn(renewing: credential, services: services)
        }
    }

    /// Whether `credential` is the environment portal's and the environment signs it in again with a
    /// password or an app's secret (an API key renews nothing).
    public func canRenew(_ credential: any ArcGISCredential) -> Bool {
        guard credentials.isPortal(credential.serverContext) else { return false }
        switch credentials.source {
        case .password: return credential is TokenCredential
        case .clientCredentials: return true
        case .apiKey: return false
        }
    }

    /// A fresh credential for `credential` signed in with the secret as last read.
    private func signIn(
        renewing credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)? {
        switch credentials.source {
        case .password(let username, let password):
            guard let token = credential as? TokenCredential else { return nil }
            return try await TokenCredential.credential(
                for: token.serverContext, tokenServiceURL: token.tokenServiceURL, username: username,
                password: password.secret, referer: token.referer,
                tokenExpirationMinutes: token.tokenExpirationMinutes, keepPassword: false, services: services)
        case .clientCredentials(let clientID, let secret):
            return try await OAuthApplicationCredential.credential(
                for: credentials.portal, clientID: clientID, clientSecret: secret.secret, services: services)
        case .apiKey:
            return nil
        }
    }
}
