import Logging
import PortalAuth
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RememberedPassword {
    /// Generates the token of `target`'s sign-in again when it is about to expire and its
    /// password is remembered, and stores it (the password stays in memory for this process's
    /// own renewals). For a federated server, the portal's token is renewed; the server's follows
    /// from it as usual. Nothing happens for any other credential.
    /// `window` (seconds; the token's renewal leeway when nil) is how close to its expiry the
    /// token is renewed (`renew --within`).
    static func renewIfExpiring(
        for target: URL, manager: AuthenticationManager, within window: TimeInterval? = nil
    ) async throws {
        let store = manager.arcGISCredentialStore
        guard var credential = try await store.credential(for: target) else { return }
        if let portal = credential.derivedFrom {
            guard let owner = try await store.credential(for: portal) else { return }
            credential = owner
        }
        guard let token = credential as? TokenCredential, !token.hasPassword,
            token.tokenInfo.expires(within: window ?? token.renewalLeeway),
            let user = token.username,
            let (username, password) = try read(for: token.serverContext, username: user, in: store.backend)
        else { return }
        manager.logger.debug("renewing with the remembered password", metadata: ["server": "\(token.serverContext)"])
        let renewed = try await TokenCredential.credential(
            for: token.serverContext, tokenServiceURL: token.tokenServiceURL, username: username, password: password,
            referer: token.referer, tokenExpirationMinutes: token.tokenExpirationMinutes, services: manager.services)
        // Under the account lock, where the account lives now (another process may have switched).
        try await store.addRenewedAccount(renewed)
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
