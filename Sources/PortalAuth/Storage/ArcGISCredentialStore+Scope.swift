#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension CredentialStore where Credential == any ArcGISCredential {
    /// The scope decision from the store alone, read on the calling thread (see
    /// ``storedCredential(for:)``), for a short-lived process that answers before it starts
    /// anything else: the stored credential for `url` with its scope, as
    /// ``AuthenticationManager/scopedCredential(for:interactive:)`` would answer when the credential
    /// needs nothing done to it. `nil` when it cannot tell without more: nothing is stored for
    /// `url`, or what is stored is a federated server token that is not the token of the
    /// principal now active on its portal (it was obtained for an account switched away from, or
    /// before an application or another user's token took the portal over), or one without a user,
    /// whose principal the store cannot tell (an application's, a pregenerated token's), or one whose
    /// scope does not cover `url` (a token that requires https, for an http URL).
    ///
    /// Whether the token is close to expiry is the caller's to check (``TokenInfo/expires(within:of:)``
    /// with the credential's ``StoredCredential/renewalLeeway``). API keys are not looked for.
    public func storedScopedCredential(for url: URL) throws -> ScopedCredential? {
        guard let stored = try storedCredential(for: url) else { return nil }
        if let portal = stored.derivedFrom {
            guard stored.username != nil else { return nil }
            // The portal's own item, exactly as the manager reads it (its server context, no other).
            let found = try URL(string: portal.url).flatMap { try storedCredential(for: $0) }
            let active = found.flatMap { $0.serverContext == portal ? $0 : nil }
            guard ArcGISResolver.isOwnFederatedToken(stored, portal: active) else { return nil }
        }
        // (What the decision would refuse, such as a token that requires https for an http URL: the
        // full decision says why.)
        let scoped = ScopedCredential(stored)
        return scoped.covers(url) ? scoped : nil
    }
}
