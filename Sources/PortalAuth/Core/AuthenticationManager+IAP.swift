#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthenticationManager {
    // MARK: - Identity-aware proxies

    /// A proxy's sign-in demand: 401 with `WWW-Authenticate: Bearer` from a host a proxy credential
    /// or plugin covers, or a redirect that a plugin recognizes as its identity provider's sign-in.
    func proxyChallenge(url: URL, response: HTTPResponse) async throws -> ProxyAuthenticationChallenge? {
        let isRedirect = [302, 303, 307].contains(response.status)
        let isBearer401 =
            response.status == 401
            && response.headers(named: "WWW-Authenticate").contains { $0.lowercased().hasPrefix("bearer") }
        guard isRedirect || isBearer401 else { return nil }
        let location = response.header("Location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        let challenge = ProxyAuthenticationChallenge(requestURL: url, status: response.status, location: location)
        if isBearer401 {
            // Only where a proxy credential or plugin covers the host: elsewhere a Bearer 401 is
            // the server's own business (HTTP authentication handles the other schemes).
            let covered =
                try await proxyCredentialStore.credential(for: url) != nil
                || handlers.contains { $0.canHandle(.proxy(challenge)) }
            return covered ? challenge : nil
        }
        // An API call sent to another origin's authorization page is a proxy's sign-in demand.
        if ProxyAuthenticationChallenge.signInRedirect(from: url, response: response) != nil { return challenge }
        return handlers.contains { $0.canHandle(.proxy(challenge)) } ? challenge : nil
    }

    func resolveProxyChallenge(
        _ challenge: ProxyAuthenticationChallenge, sent: (any ProxyAuthorizationCredential)?
    ) async throws {
        let host = try ServerContext.host(of: challenge.requestURL)
        // One flight per proxy sign-in: hosts behind the same proxy share it.
        let key = sent?.proxyIdentifier ?? host.url
        let obtained = try await proxyFlights.run(key) { [self] () -> (any ProxyAuthorizationCredential)? in
            // Stored since the request was sent (another task or process signed in or renewed).
            if let current = try await proxyCredentialStore.credential(
                for: challenge.requestURL, reload: proxies.usesCrossProcessLocks),
                current.tokenInfo.accessToken != sent?.tokenInfo.accessToken, !current.tokenInfo.isExpired()
            {
                return current
            }
            // The refused token is renewed under the same single-flight and lock as any renewal.
            if let sent, let renewed = try await proxies.renew(sent, refused: true),
                renewed.tokenInfo.accessToken != sent.tokenInfo.accessToken
            {
                return renewed
            }
            var routed = challenge
            routed.previousCredential = sent
            guard handlers.contains(where: { $0.canHandle(.proxy(routed)) }) else { return nil }
            guard case .proxy(let credential)? = try await route(.proxy(routed)) else { return nil }
            return credential
        }
        if obtained == nil {
            throw PortalAuthError(
                .authenticationRequired,
                "\(host.host):\(host.port) is behind an identity-aware proxy that wants sign-in (HTTP \(challenge.status)\(challenge.location.map { " to " + ServerContext.describe($0) } ?? ""))",
                remedy: .signIn(sent?.howToSignIn ?? .identityAwareProxy()), cause: .httpStatus(challenge.status))
        }
    }

    /// The proxy credential that requests to `url` carry (renewed when close to expiry), if the
    /// URL's host is behind an identity-aware proxy with a stored credential.
    public func proxyCredential(for url: URL) async throws -> (any ProxyAuthorizationCredential)? {
        try await proxies.credentialForUse(url)
    }

    /// Signs out of identity-aware proxies: shows each credential's ``ProxyAuthorizationCredential/logoutURL``
    /// through `userAgent` (the browser) and removes the credential. With `url`, only the
    /// credential for that URL's host. Returns the credentials removed.
    @discardableResult
    public func invalidateProxyCredentials(
        for url: URL? = nil, userAgent: (any AuthorizationUserAgent)?
    ) async throws -> [any ProxyAuthorizationCredential] {
        var removed: [any ProxyAuthorizationCredential] = []
        for credential in try await proxyCredentialStore.allCredentials(reload: true) {
            if let url, !credential.canBeUsed(for: url) { continue }
            removed.append(credential)
            try await proxyCredentialStore.invalidate(credential, userAgent: userAgent)
        }
        return removed
    }
}
