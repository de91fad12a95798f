#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// API keys (issue #22): the manager's one place for them. The hooks elsewhere are one line each,
// marked "API key (#22)": ``send(_:)``'s attempt and ``credential(for:interactive:)`` fall back on
// ``apiKeyForUse(_:)``, and a challenge to a request that carried the key is its refusal.

extension AuthenticationManager {
    /// The API key the manager presents where no user credential applies, as
    /// `ArcGISEnvironment.apiKey` in the ArcGIS Maps SDK: a request whose URL is inside the key's
    /// scope (``APIKeyCredential/applies(to:)``) and that no stored ArcGIS credential covers
    /// carries it. A user credential for the same server context wins. `nil` (the default): none.
    ///
    /// The key is not stored by setting it; store it with ``arcGISCredentialStore`` to keep it.
    public var apiKey: APIKeyCredential? {
        get { apiKeyStorage.withLock { $0 } }
        set { apiKeyStorage.withLock { $0 = newValue } }
    }

    /// ``apiKey`` when it applies to `url` (called once no user credential does).
    ///
    /// - Throws: ``PortalAuthError/Code/credentialExpired`` when the key has expired by this
    ///   machine's clock (it is not sent).
    func apiKeyForUse(_ url: URL) throws -> APIKeyCredential? {
        guard let key = apiKey, key.applies(to: url) else { return nil }
        if key.tokenInfo.isExpired() { throw key.expiredError }
        return key
    }

    /// After the server refused `key`: when the store holds another key for the same portal (a
    /// rotation in another process committed it between this process reading the key and sending
    /// it), it becomes ``apiKey`` and true is returned, for the request to go once more with it.
    /// A key never stored, or still the stored one, was refused for good: false.
    func adoptStoredReplacement(of key: APIKeyCredential) async throws -> Bool {
        guard apiKey == key else { return false }
        let stored = try await arcGISCredentialStore.allCredentials(reload: true).lazy.compactMap {
            $0 as? APIKeyCredential
        }.first { $0.scope == key.scope }
        guard let stored, stored.tokenInfo.accessToken != key.tokenInfo.accessToken else { return false }
        apiKey = stored
        return true
    }
}
