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
        // (A stored credential that answers at once is known: read once for both questions.)
        if let decided = try await storedDecision(for: url, includingProxy: true) { return decided }
        guard try await isWithinKnownScope(url) else {
            throw PortalAuthError(
                .noCredential, "no stored or environment credential covers \(ServerContext.describe(url))")
        }
        return try await wholeDecision(for: url, includingProxy: true)
    }

    /// What a program that forwards a request for someone else may do for `url`: send it with
    /// ``forwardingDecision(for:)``'s credentials when that gives one (`serve` sends on that decision), or as it is
    /// when the host has a stored network credential (an HTTP password, a client certificate); else
    /// nothing. Never contacts `url`'s host unless a credential is known for it.
    ///
    /// The decision is made for every call (with the stores as they are now), so that a sign-out in
    /// another process counts at once. Only a host's network credential is kept, by this manager,
    /// for ``forwardedHostLifetime`` (at most ``forwardedHostLimit`` hosts); a refusal is never kept.
    public func forwardingPermission(for url: URL) async throws -> ForwardingPermission {
        let host = try ServerContext.host(of: url)
        do {
            return .decided(try await forwardingDecision(for: url))
        } catch let error as PortalAuthError where error.meansNoCredentialCovers {
            let key = host.url
            let now = ContinuousClock.now
            if let until = forwardedHosts.withLock({ $0[key] }), now < until { return .hostCredential }
            guard try await !networkCredentialStore.credentials(for: host).isEmpty else { return .refused }
            forwardedHosts.withLock { kept in
                kept = kept.filter { $0.value > now }
                if kept.count >= Self.forwardedHostLimit { kept.removeAll() }
                kept[key] = now + Self.forwardedHostLifetime
            }
            return .hostCredential
        }
    }

    /// Whether a request to `url` may be forwarded at all (``forwardingPermission(for:)`` does not
    /// refuse it).
    public func mayForward(_ url: URL) async throws -> Bool {
        if case .refused = try await forwardingPermission(for: url) { return false }
        return true
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
