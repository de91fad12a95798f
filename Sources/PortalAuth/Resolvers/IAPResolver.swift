#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers identity-aware proxies' sign-in demands: one proxy sign-in per proxy however many
/// requests meet it (hosts behind the same proxy share it); a refused token is renewed under the
/// same single-flight and lock as any renewal (``IAPAuthorization``) before a plugin is asked.
final class IAPResolver: Sendable {
    /// The IAP credentials and their renewal.
    let authorization: IAPAuthorization
    /// The plugins.
    let registry: HandlerRegistry
    /// One proxy sign-in per identity-aware proxy.
    let flights = SingleFlight<String, (any IAPAuthorizationCredential)?>()

    init(authorization: IAPAuthorization, registry: HandlerRegistry) {
        self.authorization = authorization
        self.registry = registry
    }

    /// Where IAP credentials are kept.
    var store: IAPCredentialStore { authorization.store }

    /// Whether a 401 with `WWW-Authenticate: Bearer` is a proxy's (`covered`: an IAP credential
    /// or plugin covers the host) and a redirect a proxy's sign-in demand (`signInPage`: it goes
    /// to another origin's authorization page; `recognized`: a plugin recognizes it). The
    /// decision alone, without I/O.
    static func isSignInDemand(
        status: Int, bearer: Bool, covered: () async throws -> Bool, signInPage: Bool, recognized: () -> Bool
    ) async rethrows -> Bool {
        if status == 401 { return bearer ? try await covered() : false }
        guard [302, 303, 307].contains(status) else { return false }
        return signInPage || recognized()
    }

    /// A proxy's sign-in demand: 401 with `WWW-Authenticate: Bearer` from a host an IAP credential
    /// or plugin covers, or a redirect that a plugin recognizes as its identity provider's sign-in.
    func challenge(url: URL, response: TransportResponse) async throws -> IAPAuthenticationChallenge? {
        guard let isBearer401 = IAPAuthenticationChallenge.mayBeSignInDemand(response)?.bearer401 else { return nil }
        let location = response.header("Location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        let challenge = IAPAuthenticationChallenge(requestURL: url, status: response.status, location: location)
        // A Bearer 401 only where an IAP credential or plugin covers the host: elsewhere it is the
        // server's own business (HTTP authentication handles the other schemes). An API call sent
        // to another origin's authorization page is a proxy's sign-in demand.
        let isDemand = try await Self.isSignInDemand(
            status: response.status, bearer: isBearer401,
            covered: { try await store.credential(for: url) != nil || registry.canHandle(.iap(challenge)) },
            signInPage: IAPAuthenticationChallenge.signInRedirect(from: url, response: response) != nil,
            recognized: { registry.canHandle(.iap(challenge)) })
        return isDemand ? challenge : nil
    }

    /// Obtains a credential for the proxy's demand, or throws that the proxy wants sign-in.
    func resolve(
        _ challenge: IAPAuthenticationChallenge, sent: (any IAPAuthorizationCredential)?
    ) async throws {
        let host = try ServerContext.host(of: challenge.requestURL)
        // One flight per proxy sign-in: hosts behind the same proxy share it.
        let key = sent?.iapIdentifier ?? host.url
        let obtained = try await flights.run(key) { [self] () -> (any IAPAuthorizationCredential)? in
            // Stored since the request was sent (another task or process signed in or renewed).
            if let current = try await store.credential(
                for: challenge.requestURL, reload: authorization.usesCrossProcessLocks),
                current.tokenInfo.accessToken != sent?.tokenInfo.accessToken, !current.tokenInfo.isExpired()
            {
                return current
            }
            // The refused token is renewed under the same single-flight and lock as any renewal.
            if let sent, let renewed = try await authorization.renew(sent, refused: true),
                renewed.tokenInfo.accessToken != sent.tokenInfo.accessToken
            {
                return renewed
            }
            var routed = challenge
            routed.previousCredential = sent
            guard registry.canHandle(.iap(routed)) else { return nil }
            guard case .iap(let credential)? = try await registry.route(.iap(routed)) else { return nil }
            return credential
        }
        if obtained == nil {
            throw PortalAuthError(
                .authenticationRequired,
                "\(host.host):\(host.port) is behind an identity-aware proxy that wants sign-in (HTTP "
                    + "\(challenge.status)\(challenge.location.map { " to " + ServerContext.describe($0) } ?? ""))",
                remedy: .signIn(sent?.howToSignIn ?? .identityAwareProxy()), cause: .httpStatus(challenge.status))
        }
    }
}
