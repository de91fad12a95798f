import PortalAuth
import PortalAuthEnvironment

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
final class ServeManagers: Sendable {
    /// The stored credentials (another process may sign in, out or switch while serve runs).
    let stored: StoredCredentialSource
    /// The environment's credential, then the stored ones.
    private let chain: CredentialSourceChain

    private init(stored: StoredCredentialSource, environment: EnvironmentCredentialSource?) {
        self.stored = stored
        chain = CredentialSourceChain(environment.map { [$0, stored] } ?? [stored])
    }

    /// The managers for `global`'s store and transport; the environment's signs in at once.
    static func make(_ global: GlobalOptions) async throws -> ServeManagers {
        // As many connections to one server as serve has places for clients: a client that stalls
        // a streamed answer holds one until the stall timeout, and 8 (the default) such clients held
        // back every other request to that server.
        var configuration = global.transportConfiguration
        configuration.maxConnectionsPerHost = Serve.maximumConnections
        let transport = CurlTransport(configuration: configuration)
        let stored = StoredCredentialSource(
            manager: try global.makeManager(transport: transport), followingChanges: true)
        guard let credentials = try EnvironmentCredentials.read() else {
            return ServeManagers(stored: stored, environment: nil)
        }
        let manager = try GlobalOptions.makeManager(
            store: global.store, verbose: global.verbose, transport: transport, environment: credentials)
        // (A key from a file is read again when the file changes: a rotated key without a restart.)
        try await credentials.present(in: manager)
        try await credentials.signIn(in: manager)
        return ServeManagers(
            stored: stored, environment: EnvironmentCredentialSource(credentials: credentials, manager: manager))
    }

    /// The manager for `url`: the environment's when it answers for the URL, else the stored
    /// credentials' as they are now. Contacts nothing but the environment's portal.
    func manager(for url: URL) async throws -> AuthenticationManager {
        try await chain.manager(for: url, askingTheServer: false) ?? stored.manager
    }
}
