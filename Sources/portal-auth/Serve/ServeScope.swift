import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place `serve` asks which credential goes with a URL, for the token endpoint and for
/// the proxy's decision to forward: the same question `portal-auth token URL --format json` asks
/// the manager (never prompting), so that `serve` never decides on its own where a credential
/// goes: the answer is the core's (``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)``,
/// which `token` asks too; an API key's reach is ``ScopedCredential/covers(_:)``).
///
/// Before the manager is asked, ``mayContact(_:manager:)`` makes sure that the URL's host is one
/// a credential is already known for: the manager would otherwise read an unknown server's
/// `rest/info` to learn whether it is federated, and the proxy must never contact a host outside
/// a credential's scope.
enum ServeScope {
    /// What the core gives for `url`: the ArcGIS credential (renewed or federated as needed) and
    /// the identity-aware proxy's, as `token` finds them; an expiring token is renewed first (a
    /// remembered password signs in again), as for `token`. Throws `noCredential` (or the sign-in error) when
    /// no stored or environment credential covers the URL.
    static func credential(
        for url: URL, manager: AuthenticationManager
    ) async throws -> (arcGIS: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?) {
        guard try await mayContact(url, manager: manager) else {
            throw PortalAuthError(
                .noCredential, "no stored or environment credential covers \(ServerContext.describe(url))")
        }
        let decision = try await manager.decision(for: url, includingProxy: true)
        return (decision.credential, decision.proxy)
    }

    /// Whether the proxy may forward to `url`: the core gives a credential for it, or the host
    /// has a stored network credential (an HTTP password, a client certificate). Never contacts
    /// `url`'s host unless a credential is known for it.
    ///
    /// The core is asked for every request (with the stores as they are now: see
    /// ``ServeManagers/manager(for:)``), so that a sign-out or a switch in another process
    /// counts at once. Only a host's network credential is kept, for ``coveredLifetime`` per
    /// host and manager (expired entries are dropped, at most ``coveredLimit`` are kept); a no is
    /// never kept.
    static func covers(_ url: URL, manager: AuthenticationManager) async throws -> Bool {
        let host = try ServerContext.host(of: url)
        do {
            _ = try await credential(for: url, manager: manager)
            return true
        } catch let error as PortalAuthError where isOutOfScope(error) {
            let key = "\(ObjectIdentifier(manager).hashValue) \(host)"
            let now = ContinuousClock.now
            if let until = covered.withLock({ $0[key] }), now < until { return true }
            guard try await !manager.networkCredentialStore.credentials(for: host).isEmpty else { return false }
            covered.withLock { covered in
                covered = covered.filter { $0.value > now }
                if covered.count >= coveredLimit { covered.removeAll() }
                covered[key] = now + coveredLifetime
            }
            return true
        }
    }

    /// How long a host's network credential is taken as known by ``covers(_:manager:)``.
    static let coveredLifetime: Duration = .seconds(10)

    /// At most this many hosts are kept by ``covers(_:manager:)``.
    static let coveredLimit = 256

    /// The hosts (with their manager) known to have a network credential, until when.
    private static let covered = Locked<[String: ContinuousClock.Instant]>([:])

    /// Whether `error` says that no credential covers the URL (rather than that one failed).
    static func isOutOfScope(_ error: PortalAuthError) -> Bool {
        [.noCredential, .authenticationRequired, .credentialExpired, .notFederated].contains(error.code)
    }

    /// Whether a credential is known for `url` without contacting a host outside every
    /// credential's reach: the core's answer (``AuthenticationManager/isWithinKnownScope(_:)``).
    static func mayContact(_ url: URL, manager: AuthenticationManager) async throws -> Bool {
        try await manager.isWithinKnownScope(url)
    }
}
