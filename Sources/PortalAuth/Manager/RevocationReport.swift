#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``AuthenticationManager/revokeOAuthTokens(for:)`` did for one credential.
public struct RevocationReport: Sendable, Equatable {
    /// The outcome.
    public enum Outcome: Sendable, Equatable {
        /// The portal revoked the tokens.
        case revoked
        /// The revocation failed, and why.
        case failed(String)
        /// The credential's tokens cannot be revoked by a client (an identity-aware proxy's
        /// Entra tokens), and what to do instead.
        case notRevocable(String)
    }
    /// The credential's server context.
    public var serverContext: ServerContext
    /// The credential's user.
    public var username: String?
    /// The outcome.
    public var outcome: Outcome

    /// Creates a report.
    public init(serverContext: ServerContext, username: String?, outcome: Outcome) {
        self.serverContext = serverContext
        self.username = username
        self.outcome = outcome
    }
}
