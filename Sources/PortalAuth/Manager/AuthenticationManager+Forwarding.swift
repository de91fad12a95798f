#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

// For a program that forwards requests for others (a local proxy such as `portal-auth serve`): the
// decision for a URL made only where a credential is known, so that no host outside every
// credential's reach is ever contacted, and whether a request may be forwarded at all.

extension AuthenticationManager {
    /// ``decision(for:includingProxy:renewingFirst:interactive:)`` for a request forwarded for
    /// someone else: never prompting, the proxy's credential included, and only when a credential
    /// is already known for `url` (``isWithinKnownScope(_:)``): the decision would otherwise read an
    /// unknown server's `rest/info` to learn whether it is federated.
    ///
    /// - Throws: ``PortalAuthError/Code/noCredential`` when no known credential reaches `url`; as
    ///   the decision does otherwise.
    public func forwardingDecision(for url: URL) async throws -> CredentialDecision {
        guard try await isWithinKnownScope(url) else {
            throw PortalAuthError(
                .noCredential, "no stored or environment credential covers \(ServerContext.describe(url))")
        }
        return try await decision(for: url, includingProxy: true)
    }

    /// Whether a request to `url` may be forwarded: ``forwardingDecision(for:)`` gives a credential,
    /// or the host has a stored network credential (an HTTP password, a client certificate). Never
    /// contacts `url`'s host unless a credential is known for it.
    ///
    /// The decision is made for every call (with the stores as they are now), so that a sign-out in
    /// another process counts at once. Only a host's network credential is kept, by this manager,
    /// for ``forwardedHostLifetime`` (at most ``forwardedHostLimit`` hosts); a no is never kept.
    public func mayForward(_ url: URL) async throws -> Bool {
        let host = try ServerContext.host(of: url)
        do {
            _ = try await forwardingDecision(for: url)
            return true
        } catch let error as PortalAuthError where error.meansNoCredentialCovers {
            let key = host.url
            let now = ContinuousClock.now
            if let until = forwardedHosts.withLock({ $0[key] }), now < until { return true }
            guard try await !networkCredentialStore.credentials(for: host).isEmpty else { return false }
            forwardedHosts.withLock { kept in
                kept = kept.filter { $0.value > now }
                if kept.count >= Self.forwardedHostLimit { kept.removeAll() }
                kept[key] = now + Self.forwardedHostLifetime
            }
            return true
        }
    }

    /// How long a host's network credential is taken as known by ``mayForward(_:)``.
    public static let forwardedHostLifetime: Duration = .seconds(10)

    /// At most this many hosts are kept by ``mayForward(_:)``.
    public static let forwardedHostLimit = 256
}

extension PortalAuthError {
    /// Whether the error says that no credential covers the URL (none stored, a sign-in needed, an
    /// expired one, a server not federated with a signed-in portal) rather than that one failed.
    public var meansNoCredentialCovers: Bool {
        [.noCredential, .authenticationRequired, .credentialExpired, .notFederated].contains(code)
    }
}
