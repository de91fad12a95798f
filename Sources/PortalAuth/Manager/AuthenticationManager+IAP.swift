#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthenticationManager {
    // MARK: - Identity-aware proxies

    /// The IAP credential that requests to `url` carry (renewed when close to expiry), if the
    /// URL's host is behind an identity-aware proxy with a stored credential.
    public func iapCredential(for url: URL) async throws -> (any IAPAuthorizationCredential)? {
        try await iap.authorization.credentialForUse(url)
    }

    /// Signs out of identity-aware proxies: shows each credential's ``IAPAuthorizationCredential/logoutURL``
    /// through `userAgent` (the browser) and removes the credential. With `url`, only the
    /// credential for that URL's host. Returns the credentials removed.
    @discardableResult
    public func invalidateIAPCredentials(
        for url: URL? = nil, userAgent: (any AuthorizationUserAgent)?
    ) async throws -> [any IAPAuthorizationCredential] {
        var removed: [any IAPAuthorizationCredential] = []
        for credential in try await iapCredentialStore.allCredentials(reload: true) {
            if let url, !credential.canBeUsed(for: url) { continue }
            removed.append(credential)
            try await iapCredentialStore.invalidate(credential, userAgent: userAgent)
        }
        return removed
    }
}
