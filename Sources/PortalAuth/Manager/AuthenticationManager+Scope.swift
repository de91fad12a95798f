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
    /// - Parameter interactive: missing or expired credentials are asked of the plugins; without,
    ///   they are errors whose remedy says how to sign in.
    /// - Throws: as ``credential(for:interactive:)``.
    public func scopedCredential(for url: URL, interactive: Bool) async throws -> ScopedCredential {
        ScopedCredential(try await credential(for: url, interactive: interactive))
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
}
