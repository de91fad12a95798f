import Logging

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
    /// Setting it ends an ``apiKeySource``.
    public var apiKey: APIKeyCredential? {
        get { apiKeySource?.credential ?? apiKeyStorage.withLock { $0 } }
        set {
            apiKeySourceStorage.withLock { $0 = nil }
            apiKeyStorage.withLock { $0 = newValue }
        }
    }

    /// Where ``apiKey`` is read from when it comes from a secret file that rotates: before each
    /// request that may carry it the file is looked at (one `stat`) and read again when it changed,
    /// and when a server refuses the key it is read again (settled or not) before the refusal is
    /// reported, the request going once more with the new key. `nil` (the default): the key is
    /// ``apiKey`` as set.
    public var apiKeySource: RotatingAPIKey? {
        get { apiKeySourceStorage.withLock { $0 } }
        set { apiKeySourceStorage.withLock { $0 = newValue } }
    }

    /// More API keys, each presented only inside its own scope, where no user credential and no
    /// ``apiKey`` applies: the first whose ``ScopedCredential/covers(_:)`` holds for the request's
    /// URL. For a program that forwards requests for others and holds one key per portal (every
    /// key the store holds, say): it sets the list once, and each request takes the key for its
    /// own URL, so that requests for two portals at once never see each other's key. Empty (the
    /// default): none. Not stored by setting it.
    public var apiKeys: [APIKeyCredential] {
        get { apiKeysStorage.withLock { $0 } }
        set { apiKeysStorage.withLock { $0 = newValue } }
    }

    /// The key a request to `url` may carry when no user credential applies: ``apiKey`` when it
    /// applies, else the first of ``apiKeys`` whose scope covers `url`.
    func applicableAPIKey(for url: URL) -> APIKeyCredential? {
        if let key = apiKey, key.applies(to: url) { return key }
        return apiKeys.first { $0.applies(to: url) && ScopedCredential($0).covers(url) }
    }

    /// ``apiKey`` when it applies to `url` (called once no user credential does).
    ///
    /// - Throws: ``PortalAuthError/Code/credentialExpired`` when the key has expired by this
    ///   machine's clock (it is not sent).
    func apiKeyForUse(_ url: URL) throws -> APIKeyCredential? {
        if let source = apiKeySource {
            // A rotated file that breaks a rule keeps the last key; a refusal reports the file's fault.
            do { try source.refresh() } catch {
                logger.debug("the API key file was not read again", metadata: ["error": "\(error)"])
            }
        }
        guard let key = applicableAPIKey(for: url) else { return nil }
        if key.tokenInfo.isExpired() { throw key.expiredError }
        return key
    }

    /// After the server refused `key`: whether the request goes once more with another key, the
    /// one ``apiKeySource``'s file holds now (read again, settled or not; a file that breaks a rule
    /// throws its refusal), else a stored replacement (``adoptStoredReplacement(of:)``).
    func adoptReplacement(of key: APIKeyCredential) async throws -> Bool {
        guard let source = apiKeySource else { return try await adoptStoredReplacement(of: key) }
        try source.refresh(now: .max)
        return source.credential.tokenInfo.accessToken != key.tokenInfo.accessToken
    }

    /// Whether `failure`, the answer to a request that carried `key`, refused it (401 or 403, as
    /// some services answer a key they do not know) while ``apiKeySource``'s file holds another key
    /// now: the request then goes once more with it.
    func retriesWithRotatedKey(
        after failure: any Error, _ attempt: RequestAttempt, _ ledger: inout ChallengeLedger
    ) async throws -> Bool {
        guard let key = attempt.credential as? APIKeyCredential, apiKeySource != nil,
            let error = failure as? PortalAuthError
        else { return false }
        switch error.cause {
        case .arcGIS(let code, _, _, _)? where code == 401 || code == 403: break
        case .httpStatus(let status)? where status == 401 || status == 403: break
        default: return false
        }
        guard ledger.answer(.arcGIS) else { return false }
        return try await adoptReplacement(of: key)
    }

    /// After the server refused `key`: when the store holds another key for the same portal (a
    /// rotation in another process committed it between this process reading the key and sending
    /// it), it takes `key`'s place (``apiKey``, or its place in ``apiKeys``) and true is returned,
    /// for the request to go once more with it. A key never stored, or still the stored one, was
    /// refused for good: false. Requests refused at the same moment all go again: the first adopts
    /// the replacement, and each one after it finds another key of the same portal in its place.
    func adoptStoredReplacement(of key: APIKeyCredential) async throws -> Bool {
        let held = (apiKey.map { [$0] } ?? []) + apiKeys
        if let current = held.first(where: { $0.scope == key.scope }), current != key {
            return current.tokenInfo.accessToken != key.tokenInfo.accessToken
        }
        guard held.contains(key) else { return false }
        let stored = try await arcGISCredentialStore.allCredentials(reload: true).lazy.compactMap {
            $0 as? APIKeyCredential
        }.first { $0.scope == key.scope }
        guard let stored, stored.tokenInfo.accessToken != key.tokenInfo.accessToken else { return false }
        if apiKey == key {
            apiKey = stored
        } else {
            apiKeysStorage.withLock { keys in keys = keys.map { $0 == key ? stored : $0 } }
        }
        return true
    }
}
