import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The managers `serve` answers with, made once for the life of the process so that every
/// client shares their renewals: the stored credentials', and, when the environment supplies a
/// credential (`ARCGIS_HOST` and the rest), the environment's, in memory, for the URLs it covers
/// (as ``GlobalOptions/managerAndTarget(_:transport:storedAccount:)`` chooses for one command).
final class ServeManagers: Sendable {
    let stored: AuthenticationManager
    private let environment:
        (credentials: EnvironmentCredentials, key: APIKeyCredential?, manager: AuthenticationManager)?
    private let transport: CurlTransport
    /// Whether the environment's credential covers each ArcGIS Server root asked about (its
    /// `rest/info` read once).
    private let covered = Locked<[String: Bool]>([:])

    private init(
        stored: AuthenticationManager,
        environment: (credentials: EnvironmentCredentials, key: APIKeyCredential?, manager: AuthenticationManager)?,
        transport: CurlTransport
    ) {
        self.stored = stored
        self.environment = environment
        self.transport = transport
    }

    /// The managers for `global`'s store and transport; the environment's signs in at once.
    static func make(_ global: GlobalOptions) async throws -> ServeManagers {
        let transport = global.makeTransport()
        let stored = try global.makeManager(transport: transport)
        guard let credentials = try EnvironmentCredentials.read() else {
            return ServeManagers(stored: stored, environment: nil, transport: transport)
        }
        let manager = try GlobalOptions.makeManager(
            store: global.store, verbose: global.verbose, transport: transport, environment: credentials)
        let key = try await credentials.apiKeyCredential(transport: transport)
        if let key {
            manager.apiKey = key
        } else {
            _ = try await manager.credential(for: URL(string: credentials.portal.url)!, interactive: true)
        }
        return ServeManagers(stored: stored, environment: (credentials, key, manager), transport: transport)
    }

    /// The manager for `url`: the environment's when its credential covers the URL, else the
    /// stored credentials'.
    func manager(for url: URL) async -> AuthenticationManager {
        guard let environment else { return stored }
        if let key = environment.key { return key.applies(to: url) ? environment.manager : stored }
        let root = ServerContext.arcGISServerRoot(of: url)?.url ?? ""
        if !root.isEmpty, let known = covered.withLock({ $0[root] }) { return known ? environment.manager : stored }
        let covers = await environment.credentials.covers(url, transport: transport)
        if !root.isEmpty { covered.withLock { $0[root] = covers } }
        return covers ? environment.manager : stored
    }
}
