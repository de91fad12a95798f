#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``AuthenticationManager/signOut(userAgent:)`` did.
public struct SignOutReport: Sendable {
    /// The outcome of each revocation (see ``AuthenticationManager/revokeOAuthTokens(for:)``).
    public var revocations: [RevocationReport]
    /// The IAP credentials signed out of (their sign-out pages shown) and removed.
    public var invalidatedIAPCredentials: [any IAPAuthorizationCredential]
    /// How many credentials were then removed from the three stores.
    public var removedCredentialCount: Int

    /// Creates a report.
    public init(
        revocations: [RevocationReport], invalidatedIAPCredentials: [any IAPAuthorizationCredential],
        removedCredentialCount: Int
    ) {
        self.revocations = revocations
        self.invalidatedIAPCredentials = invalidatedIAPCredentials
        self.removedCredentialCount = removedCredentialCount
    }
}
