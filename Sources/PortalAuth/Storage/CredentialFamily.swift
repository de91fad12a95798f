#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// What tells one family of credentials apart in the one ``CredentialStore``: the `store`
/// attribute of its items, how a URL finds its scopes, and what a new item replaces.
package struct CredentialFamily: Sendable {
    /// The `store` attribute (`arcgis`, `network`, `proxy`: the names earlier versions stored).
    package var storeName: String
    /// The scopes that may hold the credential for a URL, most specific first; `nil`: every stored
    /// credential is asked (``StoredCredential/applies(to:)``).
    package var candidateScopes: @Sendable (URL) throws -> [CredentialScope]?
    /// Whether a scope holds one credential of any kind (a new kind replaces the old one, and a
    /// lookup reads one item); otherwise one of each kind.
    package var onePerScope: Bool
    /// Whether the list of every credential is cached (for a family that finds a URL's credential
    /// by asking each one); otherwise ``CredentialStore/allCredentials(reload:)`` reads the backend.
    package var cachesEveryCredential = false
}
