#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

// The scope decision (``ScopedCredential``): the manager's entry points. The request loop attaches
// through ``attachableCredential(for:)``; programs that hand a token on ask
// ``scopedCredential(for:interactive:)``.

extension AuthenticationManager {
    /// The scope decision for a program that hands a credential on (a command that prints a
    /// token, a local server that answers for one, a child process's environment): the credential
    /// for `url` as ``credential(for:interactive:)`` obtains it (the user's stored one, renewed; a
    /// federated server's token from its portal, never another account's; else the ``apiKey``
    /// when its scope covers `url`), with its kind and the exact URL prefixes it may go to.
    ///
    /// Only a credential whose scope covers `url` (``ScopedCredential/covers(_:)``) is given: what
    /// a program hands on for `url` may go to `url`.
    ///
    /// - Parameter interactive: missing or expired credentials are asked of the plugins; without,
    ///   they are errors whose remedy says how to sign in.
    /// - Throws: as ``credential(for:interactive:)``; ``PortalAuthError/Code/insecureTransport`` for a
    ///   token that requires https and a plain http `url` (a federated server's portal token, say),
    ///   ``PortalAuthError/Code/noCredential`` for any other credential whose scope does not cover `url`.
    public func scopedCredential(for url: URL, interactive: Bool) async throws -> ScopedCredential {
        let scoped = ScopedCredential(try await credential(for: url, interactive: interactive))
        guard scoped.covers(url) else { throw Self.outOfScope(scoped, url) }
        return scoped
    }

    /// Why a token that requires https is not sent (or handed on) for the plain http `url`.
    static func plainHTTPRefusal(of credential: any ArcGISCredential, for url: URL) -> PortalAuthError {
        PortalAuthError(
            .insecureTransport,
            "refusing to send the token of \(credential.serverContext) over plain http to "
                + "\(ServerContext.describe(url)): the token requires https",
            remedy: .useHTTPS(url: url))
    }

    /// Why `scoped` is not given for `url`, a URL outside its scope.
    static func outOfScope(_ scoped: ScopedCredential, _ url: URL) -> PortalAuthError {
        let credential = scoped.credential
        if credential.tokenInfo.isSSLRequired, url.scheme?.lowercased() != "https" {
            return plainHTTPRefusal(of: credential, for: url)
        }
        return PortalAuthError(
            .noCredential,
            "the credential of \(credential.serverContext) does not cover \(ServerContext.describe(url))",
            remedy: (try? ServerContext(url: url)).map { signInRemedy(for: $0, credential: nil) } ?? .checkURL)
    }

    /// The credential a request to `url` carries: the stored one of its server context (renewed,
    /// never another account's federated token), else the ``apiKey``; only when its
    /// ``ScopedCredential/covers(_:)`` says `url` is inside its scope.
    ///
    /// - Throws: ``PortalAuthError/Code/insecureTransport`` for a token that requires https and
    ///   a plain http `url`; ``PortalAuthError/Code/credentialExpired`` for an expired API key.
    func attachableCredential(for url: URL) async throws -> (any ArcGISCredential)? {
        // API key (#22): the manager's key where no user credential applies.
        guard let credential = try await arcGIS.credentialForUse(url) ?? apiKeyForUse(url) else { return nil }
        return ScopedCredential(credential).covers(url) ? credential : nil
    }

    /// Whether a credential known now reaches `url`, decided without contacting any host outside
    /// every credential's reach: a stored credential of its server context, the ``apiKey`` (or one
    /// of ``apiKeys``) or an identity-aware proxy's credential that covers it, a network credential of its host, or an
    /// ArcGIS Server root that a portal lists among its federated servers (`portals/self/servers`,
    /// read from the portal with its own credential). A program that forwards requests for others
    /// (a local proxy) asks this before ``scopedCredential(for:interactive:)``, which may read an
    /// unknown server's `rest/info` to learn its owner.
    ///
    /// Only a credential the portal issued (``ArcGISCredential/isIssuedByPortal``) speaks for it:
    /// what a server with a pregenerated token or its own token lists is never a reason to contact
    /// another host.
    public func isWithinKnownScope(_ url: URL) async throws -> Bool {
        if try await arcGISCredentialStore.credential(for: url) != nil { return true }
        if let key = applicableAPIKey(for: url), ScopedCredential(key).covers(url) { return true }
        if try await iapCredentialStore.credential(for: url) != nil { return true }
        if try await !networkCredentialStore.credentials(for: ServerContext.host(of: url)).isEmpty { return true }
        guard let root = ServerContext.arcGISServerRoot(of: url) else { return false }
        for portal in try await arcGISCredentialStore.allCredentials() where portal.isIssuedByPortal {
            if await isListed(root, by: portal) { return true }
        }
        return false
    }

    /// Whether `portal`'s portal lists `root` among its federated servers (renewed first when its
    /// token ended); `false` when the list cannot be read.
    private func isListed(_ root: ServerContext, by portal: any ArcGISCredential) async -> Bool {
        var current = portal
        if portal.tokenInfo.isExpired(),
            let renewed = try? await arcGIS.credentialForUse(URL(string: portal.serverContext.url)!)
        {
            guard renewed.isIssuedByPortal else { return false }
            current = renewed
        }
        guard let list = try? await arcGIS.federatedServers(of: current) else { return false }
        return list.roots.contains(root.url)
    }
}
