public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The environment's credential as a ``CredentialSource``: its manager (memory only) answers for
/// the URLs ``EnvironmentCredentials/answers(for:in:askedBy:)`` gives it. Put it before
/// the stored credentials in a ``CredentialSourceChain``: within its scope, the environment wins.
public struct EnvironmentCredentialSource: CredentialSource {
    /// The environment's credential.
    public let credentials: EnvironmentCredentials
    /// Its manager: a memory store, ``EnvironmentSignInHandler`` and ``EnvironmentRenewal``
    /// registered, the credential presented (``EnvironmentCredentials/present(in:)``).
    public let manager: AuthenticationManager

    /// The source of `credentials`, answering with `manager`.
    public init(credentials: EnvironmentCredentials, manager: AuthenticationManager) {
        self.credentials = credentials
        self.manager = manager
    }

    /// The variables in use and the portal (never a value).
    public var description: String {
        "the environment (\(credentials.variables.joined(separator: ", "))) for \(credentials.portal)"
    }

    /// "environment".
    public var name: String { "environment" }

    /// Whether `url` is the environment's (``EnvironmentCredentials/answers(for:in:askedBy:)``).
    public func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool {
        try await credentials.answers(for: url, in: manager, askedBy: caller)
    }
}
