#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthenticationManager {
    // MARK: - Sign-out

    /// Removes every portal-auth credential from the three stores (all kinds, all servers),
    /// proxy (IAP) credentials included, without opening their sign-out pages (see
    /// ``invalidateIAPCredentials(for:userAgent:)``).
    @discardableResult
    public func clearCredentialStores() async throws -> Int {
        let arcGIS = try await arcGISCredentialStore.removeAll()
        let network = try await networkCredentialStore.removeAll()
        let proxy = try await iapCredentialStore.removeAll()
        return arcGIS + network + proxy
    }

    /// Revokes the tokens of every stored credential that can be revoked (OAuth user credentials)
    /// at its portal, and reports the outcome of each. Proxy (IAP) credentials are reported as
    /// ``RevocationReport/Outcome/notRevocable(_:)``: an identity provider such as Entra ID
    /// offers clients no revocation endpoint, so ``invalidateIAPCredentials(for:userAgent:)``
    /// (its sign-out page) is the way to end them. Credentials stay in the store; call
    /// ``clearCredentialStores()`` to remove them.
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
        for proxy in try await iapCredentialStore.allCredentials(reload: true) {
            if let context, let url = URL(string: context.url), !proxy.canBeUsed(for: url) { continue }
            guard let identifier = URL(string: proxy.iapIdentifier),
                let identityProvider = try? ServerContext.host(of: identifier)
            else { continue }
            let signOut = proxy.logoutURL.map { ": sign out at \(URLRedaction.redact($0.absoluteString))" } ?? ""
            let expiry = proxy.tokenInfo.expirationDate.map { "; its token expires \($0.formatted(.iso8601))" } ?? ""
            reports.append(
                RevocationReport(
                    serverContext: identityProvider, username: proxy.username,
                    outcome: .notRevocable("the identity provider offers no revocation\(signOut)\(expiry)")))
        }
        return reports
    }
}
