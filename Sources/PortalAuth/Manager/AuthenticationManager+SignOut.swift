#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthenticationManager {
    // MARK: - Sign-out

    /// Signs out of everything, as the Maps SDK toolkit's `signOut()` does: revokes the OAuth tokens
    /// (``revokeOAuthTokens(for:)``), signs out of identity-aware proxies
    /// (``invalidateIAPCredentials(for:userAgent:)``), then clears the credential stores
    /// (``clearCredentialStores()``).
    ///
    /// Unlike the toolkit's, which revokes silently, it returns what happened: a portal that could
    /// not be reached keeps a refresh token that is still valid until it expires, and a caller
    /// that signs a user out must be able to say so (the local credentials are removed anyway).
    ///
    /// - Parameter userAgent: shows each IAP credential's sign-out page (the browser); nil removes
    ///   IAP credentials without showing it.
    /// - Throws: a storage error; failed revocations are reported, not thrown.
    @discardableResult
    public func signOut(userAgent: (any AuthorizationUserAgent)? = nil) async throws -> SignOutReport {
        let revocations = try await revokeOAuthTokens()
        let invalidated = try await invalidateIAPCredentials(userAgent: userAgent)
        let removed = try await clearCredentialStores()
        return SignOutReport(
            revocations: revocations, invalidatedIAPCredentials: invalidated, removedCredentialCount: removed)
    }

    /// Removes every portal-auth credential from the three stores (all kinds, all servers, every
    /// account), IAP credentials included, without opening their sign-out pages (see
    /// ``invalidateIAPCredentials(for:userAgent:)``).
    @discardableResult
    public func clearCredentialStores() async throws -> Int {
        let arcGIS = try await arcGISCredentialStore.removeAll() + arcGISCredentialStore.removeAllAccounts()
        let network = try await networkCredentialStore.removeAll()
        let iap = try await iapCredentialStore.removeAll()
        return arcGIS + network + iap
    }

    /// Revokes the tokens of every stored credential that can be revoked (OAuth user credentials)
    /// at its portal, and reports the outcome of each. IAP credentials are reported as
    /// ``RevocationReport/Outcome/notRevocable(_:)``: an identity provider such as Entra ID
    /// offers clients no revocation endpoint, so ``invalidateIAPCredentials(for:userAgent:)``
    /// (its sign-out page) is the way to end them. Credentials stay in the store; call
    /// ``clearCredentialStores()`` to remove them.
    ///
    /// The SDK's `revokeOAuthTokens()` reports nothing; this report is kept because a revocation
    /// that failed leaves a valid refresh token behind, which a caller must be able to tell the user.
    public func revokeOAuthTokens(for context: ServerContext? = nil) async throws -> [RevocationReport] {
        var reports: [RevocationReport] = []
        for credential in try await arcGISCredentialStore.allCredentials() {
            guard let revocable = credential as? any RevocableCredential else { continue }
            if let context, revocable.serverContext != context { continue }
            do {
                try await revocable.revoke(using: services)
                reports.append(
                    RevocationReport(
                        serverContext: revocable.serverContext, username: revocable.username, outcome: .revoked))
            } catch let error as PortalAuthError {
                reports.append(
                    RevocationReport(
                        serverContext: revocable.serverContext, username: revocable.username,
                        outcome: .failed(error.message)))
            }
        }
        for iap in try await iapCredentialStore.allCredentials(reload: true) {
            if let context, let url = URL(string: context.url), !iap.canBeUsed(for: url) { continue }
            guard let identifier = URL(string: iap.iapIdentifier),
                let identityProvider = try? ServerContext.host(of: identifier)
            else { continue }
            let signOut = iap.logoutURL.map { ": sign out at \(URLRedaction.redact($0.absoluteString))" } ?? ""
            let expiry = iap.tokenInfo.expirationDate.map { "; its token expires \($0.formatted(.iso8601))" } ?? ""
            reports.append(
                RevocationReport(
                    serverContext: identityProvider, username: iap.username,
                    outcome: .notRevocable("the identity provider offers no revocation\(signOut)\(expiry)")))
        }
        return reports
    }
}
