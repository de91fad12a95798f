#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthenticationManager {
    // MARK: - Identity-aware proxies

    /// A proxy's sign-in demand: 401 with `WWW-Authenticate: Bearer` from a host an IAP credential
    /// or plugin covers, or a redirect that a plugin recognizes as its identity provider's sign-in.
    func iapChallenge(url: URL, response: TransportResponse) async throws -> IAPAuthenticationChallenge? {
        let isRedirect = [302, 303, 307].contains(response.status)
        let isBearer401 =
            response.status == 401
            && response.headers(named: "WWW-Authenticate").contains { $0.lowercased().hasPrefix("bearer") }
        guard isRedirect || isBearer401 else { return nil }
        let location = response.header("Location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        let challenge = IAPAuthenticationChallenge(requestURL: url, status: response.status, location: location)
        if isBearer401 {
            // Only where an IAP credential or plugin covers the host: elsewhere a Bearer 401 is
            // the server's own business (HTTP authentication handles the other schemes).
            let covered =
                try await iapCredentialStore.credential(for: url) != nil
                || handlers.contains { $0.canHandle(.iap(challenge)) }
            return covered ? challenge : nil
        }
        // An API call sent to another origin's authorization page is a proxy's sign-in demand.
        if IAPAuthenticationChallenge.signInRedirect(from: url, response: response) != nil { return challenge }
        return handlers.contains { $0.canHandle(.iap(challenge)) } ? challenge : nil
    }

    func resolveIAPChallenge(
        _ challenge: IAPAuthenticationChallenge, sent: (any IAPAuthorizationCredential)?
    ) async throws {
        let host = try ServerContext.host(of: challenge.requestURL)
        // One flight per proxy sign-in: hosts behind the same proxy share it.
        let key = sent?.iapIdentifier ?? host.url
        let obtained = try await iapFlights.run(key) { [self] () -> (any IAPAuthorizationCredential)? in
            // Stored since the request was sent (another task or process signed in or renewed).
            if let current = try await iapCredentialStore.credential(
                for: challenge.requestURL, reload: iapAuthorization.usesCrossProcessLocks),
                current.tokenInfo.accessToken != sent?.tokenInfo.accessToken, !current.tokenInfo.isExpired()
            {
                return current
            }
            // The refused token is renewed under the same single-flight and lock as any renewal.
            if let sent, let renewed = try await iapAuthorization.renew(sent, refused: true),
                renewed.tokenInfo.accessToken != sent.tokenInfo.accessToken
            {
                return renewed
            }
            var routed = challenge
            routed.previousCredential = sent
            guard handlers.contains(where: { $0.canHandle(.iap(routed)) }) else { return nil }
            guard case .iap(let credential)? = try await route(.iap(routed)) else { return nil }
            return credential
        }
        if obtained == nil {
            throw PortalAuthError(
                .authenticationRequired,
                "\(host.host):\(host.port) is behind an identity-aware proxy that wants sign-in (HTTP \(challenge.status)\(challenge.location.map { " to " + ServerContext.describe($0) } ?? ""))",
                remedy: .signIn(sent?.howToSignIn ?? .identityAwareProxy()), cause: .httpStatus(challenge.status))
        }
    }

    /// The IAP credential that requests to `url` carry (renewed when close to expiry), if the
    /// URL's host is behind an identity-aware proxy with a stored credential.
    public func iapCredential(for url: URL) async throws -> (any IAPAuthorizationCredential)? {
        try await iapAuthorization.credentialForUse(url)
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
