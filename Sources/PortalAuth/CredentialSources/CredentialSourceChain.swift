#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The credential sources of a program, in order: the first that answers for a URL is the one
/// whose manager decides what goes there, the way aws-sdk-swift's credential resolver chain takes
/// the first resolver that has credentials. The CLI's commands and `serve` build theirs as
/// [the environment's, the stored credentials'] (``StoredCredentialSource`` answers for every URL,
/// so it goes last).
public struct CredentialSourceChain: Sendable {
    /// The sources, in the order they are asked.
    public let sources: [any CredentialSource]

    /// A chain asking `sources` in order.
    public init(_ sources: [any CredentialSource]) {
        self.sources = sources
    }

    /// The first source that answers for `url` (``CredentialSource/answers(for:askedBy:)``);
    /// nil when none does.
    public func source(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> (any CredentialSource)? {
        for source in sources where try await source.answers(for: url, askedBy: caller) {
            return source
        }
        return nil
    }

    /// The manager of the first source that answers for `url`; nil when none does.
    public func manager(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> AuthenticationManager? {
        try await source(for: url, askedBy: caller)?.manager
    }

    /// The decision for `url` of the first source that answers for it, naming that source
    /// (``CredentialSource/decision(for:askedBy:includingProxy:renewingFirst:interactive:)``).
    ///
    /// - Throws: ``PortalAuthError/Code/noCredential`` when no source answers for `url`; as the
    ///   decision does otherwise.
    public func decision(
        for url: URL, askedBy caller: CredentialSourceCaller, includingProxy: Bool = true, interactive: Bool = false
    ) async throws -> CredentialDecision {
        guard let source = try await source(for: url, askedBy: caller) else {
            throw PortalAuthError(.noCredential, "no credential source answers for \(ServerContext.describe(url))")
        }
        return try await source.decision(
            for: url, askedBy: caller, includingProxy: includingProxy, interactive: interactive)
    }
}
