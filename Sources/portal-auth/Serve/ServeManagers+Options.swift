import PortalAuth
import PortalAuthEnvironment
import PortalAuthServe

/// The managers `serve` answers with, from the global options.
extension ServeManagers {
    /// The transport of serve's managers, for `global`'s options.
    static func transport(_ global: GlobalOptions) -> CurlTransport {
        // As many connections to one server as serve has places for clients: a client that stalls
        // a streamed answer holds one until the stall timeout, and 8 (the default) such clients held
        // back every other request to that server.
        var configuration = global.transportConfiguration
        configuration.maxConnectionsPerHost = Serve.maximumConnections
        return CurlTransport(configuration: configuration)
    }

    /// The managers for `global`'s store and transport; the environment's signs in at once.
    static func make(_ global: GlobalOptions, transport: CurlTransport) async throws -> ServeManagers {
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
}
