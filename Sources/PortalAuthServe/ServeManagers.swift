public import PortalAuth
public import PortalAuthEnvironment

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The managers `serve` answers with, made once for the life of the process so that every
/// client shares their renewals: a chain of the environment's credential (`ARCGIS_HOST` and the
/// rest), in memory, when it supplies one, and the stored credentials, seen as they are now.
///
/// Choosing a manager is the library's decision (``CredentialSourceChain``, without asking the
/// server): a URL is the environment's when it is the portal's, or an ArcGIS Server that the
/// portal lists among its servers (`portals/self/servers`, read with the environment's
/// credential). The environment's manager signs in at the start, so the choice contacts no host
/// but the environment's portal.
public final class ServeManagers: Sendable {
    /// The stored credentials (another process may sign in, out or switch while serve runs).
    private let stored: StoredCredentialSource
    /// The environment's credential, then the stored ones.
    private let chain: CredentialSourceChain

    /// The managers of `stored` (serve makes it follow the stores' changes: it outlives them) and,
    /// when the environment supplies a credential, `environment`'s, signed in already.
    public init(stored: StoredCredentialSource, environment: EnvironmentCredentialSource?) {
        self.stored = stored
        chain = CredentialSourceChain(environment.map { [$0, stored] } ?? [stored])
    }

    /// The manager for `url`: the environment's when it answers for the URL, else the stored
    /// credentials' as they are now. Contacts nothing but the environment's portal.
    public func manager(for url: URL) async throws -> AuthenticationManager {
        try await chain.manager(for: url, askedBy: .proxy) ?? stored.manager
    }

    /// The decision for `url` of the source that answers for it (``manager(for:)``'s), as a proxy
    /// asks it (``AuthenticationManager/forwardingDecision(for:)``), naming the source.
    public func decision(for url: URL) async throws -> CredentialDecision {
        try await chain.decision(for: url, askedBy: .proxy)
    }
}
