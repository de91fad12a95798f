#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

// The one decision for a URL that the surfaces which hand a credential on ask (a command that
// prints a token, `exec`, a local proxy): ``decision(for:includingProxy:renewingFirst:interactive:)``.

extension AuthenticationManager {
    /// The credential for `url` that a program hands on, decided in one place: an expiring token
    /// renewed first (`renewingFirst`, ``renewIfExpiring(_:within:)``), a stored API key where no
    /// user credential is stored for `url` and the manager holds no key (as ``adoptStoredAPIKey(for:)``
    /// would give it, without keeping it: the manager is not changed), then the scope decision
    /// (``scopedCredential(for:interactive:)``) and, when `includingProxy`, the identity-aware
    /// proxy's credential for the host (for an https URL only: it never goes over plain http). With no ArcGIS credential for `url`, the proxy's alone
    /// (looked up then even without `includingProxy`).
    ///
    /// - Parameter interactive: a missing credential is asked of the plugins (never when a proxy
    ///   credential answers for the host); without, it is an error whose remedy says how to sign in.
    /// - Throws: ``PortalAuthError/Code/noCredential`` or ``PortalAuthError/Code/authenticationRequired``
    ///   when neither applies; any error of renewing or reading the stores.
    public func decision(
        for url: URL, includingProxy: Bool, renewingFirst: Bool = true, interactive: Bool = false
    ) async throws -> CredentialDecision {
        if let decided = try await storedDecision(for: url, includingProxy: includingProxy) { return decided }
        return try await wholeDecision(
            for: url, includingProxy: includingProxy, renewingFirst: renewingFirst, interactive: interactive)
    }

    /// ``decision(for:includingProxy:renewingFirst:interactive:)`` step by step, for a URL that
    /// ``storedDecision(for:includingProxy:)`` did not answer.
    func wholeDecision(
        for url: URL, includingProxy: Bool, renewingFirst: Bool = true, interactive: Bool = false
    ) async throws -> CredentialDecision {
        if renewingFirst { try await renewIfExpiring(url) }
        // (The proxy's token goes over https only, as the transport sends it.)
        let https = url.scheme?.lowercased() == "https"
        let proxy = includingProxy && https ? try await iapCredential(for: url) : nil
        if let key = try await storedAPIKeyToAdopt(for: url) {
            // (As the manager's own key would be: used only when it has not expired.)
            if key.tokenInfo.isExpired() { throw key.expiredError }
            return CredentialDecision(
                url: url, scoped: ScopedCredential(key), proxy: proxy, decidedBy: self,
                includesProxy: includingProxy)
        }
        do {
            let scoped = try await scopedCredential(for: url, interactive: interactive && proxy == nil)
            return CredentialDecision(
                url: url, scoped: scoped, proxy: proxy, decidedBy: self, includesProxy: includingProxy)
        } catch let error as PortalAuthError where error.code == .noCredential || error.code == .authenticationRequired
        {
            var usable = proxy
            if usable == nil, !includingProxy, https { usable = try await iapCredential(for: url) }
            guard let usable else { throw error }
            return CredentialDecision(
                url: url, scoped: nil, proxy: usable, decidedBy: self, includesProxy: true)
        }
    }

    /// The decision in its usual case, from one read of the ArcGIS store (and one of the proxy's
    /// store, when `includingProxy` for an https URL): the stored credential of `url`'s server
    /// context (and, for a federated server's token, its portal's) is not another account's server
    /// token (``ArcGISResolver/isOwnFederatedToken(_:portal:)``), neither is due for renewal, and its
    /// scope covers `url`. Then every step of
    /// ``decision(for:includingProxy:renewingFirst:interactive:)`` would give that credential (nothing to
    /// renew, a user credential wins over any API key, no plugin is asked), so it is given at once.
    /// `nil` in any other case, which the whole decision then makes.
    func storedDecision(for url: URL, includingProxy: Bool) async throws -> CredentialDecision? {
        let store = arcGISCredentialStore
        guard let stored = try await store.credential(for: url),
            !stored.tokenInfo.expires(within: stored.renewalLeeway)
        else { return nil }
        if let portal = stored.derivedFrom {
            guard let owner = try await store.credential(for: portal),
                ArcGISResolver.isOwnFederatedToken(stored, portal: owner),
                !owner.tokenInfo.expires(within: owner.renewalLeeway)
            else { return nil }
        }
        let scoped = ScopedCredential(stored)
        guard scoped.covers(url) else { return nil }
        // (The proxy's token goes over https only, as the transport sends it.)
        let proxy = includingProxy && url.scheme?.lowercased() == "https" ? try await iapCredential(for: url) : nil
        return CredentialDecision(
            url: url, scoped: scoped, proxy: proxy, decidedBy: self, includesProxy: includingProxy)
    }

    /// Renews the sign-in of `url` (for a federated server, its portal's) through the one renewal
    /// path when its token expires within `window` (seconds; the credential's renewal leeway when
    /// nil), so that a program that reads the store next sees the renewed token. A window wider than
    /// the leeway renews a token that is still good (a program that renews ahead of time).
    public func renewIfExpiring(_ url: URL, within window: TimeInterval? = nil) async throws {
        let store = arcGISCredentialStore
        guard var credential = try await store.credential(for: url) else { return }
        if let portal = credential.derivedFrom {
            guard let owner = try await store.credential(for: portal) else { return }
            credential = owner
        }
        guard credential.tokenInfo.expires(within: window ?? credential.renewalLeeway),
            let target = URL(string: credential.serverContext.url)
        else { return }
        _ = try await renewCredential(for: target, refused: window != nil)
    }

    /// Makes the stored API key whose scope covers `url` this manager's ``apiKey``, unless a user
    /// credential is stored for `url` (it wins) or the manager holds a key already (its own, or the
    /// ``apiKeys`` a program set).
    public func adoptStoredAPIKey(for url: URL) async throws {
        if let key = try await storedAPIKeyToAdopt(for: url) { apiKey = key }
    }

    /// The stored key ``adoptStoredAPIKey(for:)`` gives: none when a user credential is stored for
    /// `url` or the manager holds a key already.
    private func storedAPIKeyToAdopt(for url: URL) async throws -> APIKeyCredential? {
        guard apiKey == nil, apiKeys.isEmpty, try await arcGISCredentialStore.credential(for: url) == nil else {
            return nil
        }
        return try await storedAPIKey(for: url)
    }

    /// The stored API key whose scope covers `url` (``ScopedCredential/covers(_:)``), when there is
    /// one; the store is not read when it holds no API key at all.
    public func storedAPIKey(for url: URL) async throws -> APIKeyCredential? {
        try await storedAPIKeys().first { ScopedCredential($0).covers(url) }
    }

    /// Every stored API key; the store is not read when it holds no API key at all.
    public func storedAPIKeys() async throws -> [APIKeyCredential] {
        let store = arcGISCredentialStore
        let any = CredentialQuery(store: ArcGISCredentialStore.storeName, kind: APIKeyCredential.kind)
        // (Off the calling thread: the keyring's check may wait for another process's change.)
        let backend = store.backend
        guard try await BlockingIO.run(backend.isBlocking, { try backend.contains(any) }) else { return [] }
        return try await store.allCredentials().compactMap { $0 as? APIKeyCredential }
    }
}
