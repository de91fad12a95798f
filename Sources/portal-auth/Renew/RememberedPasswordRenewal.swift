import Logging
import PortalAuth
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renews a token whose password is not in memory with the password remembered for its server
/// context and user (`login --remember-password`), unattended, in the manager's renewal path
/// (under its lock): before the token expires and after a server refused it.
struct RememberedPasswordRenewal: UnattendedRenewal {
    let backend: any CredentialStorageBackend
    let logger: Logger

    func renewed(
        _ credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)? {
        guard backend.isPersistent, let token = credential as? TokenCredential, !token.hasPassword,
            let user = token.username,
            let (username, password) = try RememberedPassword.read(
                for: token.serverContext, username: user, in: backend)
        else { return nil }
        logger.debug("renewing with the remembered password", metadata: ["server": "\(token.serverContext)"])
        return try await TokenCredential.credential(
            for: token.serverContext, tokenServiceURL: token.tokenServiceURL, username: username, password: password,
            referer: token.referer, tokenExpirationMinutes: token.tokenExpirationMinutes,
            services: services)
    }
}

/// Answers a token challenge with the remembered password of its server context when there is
/// one (a token the server refused before it expired), and asks `fallback` otherwise.
struct RememberedPasswordProvider: UsernamePasswordProvider {
    let backend: any CredentialStorageBackend
    let fallback: any UsernamePasswordProvider

    func usernameAndPassword(
        for challenge: ArcGISAuthenticationChallenge
    ) async throws -> (username: String, password: String)? {
        if backend.isPersistent, let username = challenge.previousCredential?.username,
            let kept = try RememberedPassword.read(for: challenge.serverContext, username: username, in: backend)
        {
            return kept
        }
        return try await fallback.usernameAndPassword(for: challenge)
    }
}
