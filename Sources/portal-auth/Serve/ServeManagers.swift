import PortalAuth
import PortalAuthEnvironment

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The managers `serve` answers with, made once for the life of the process so that every
/// client shares their renewals: the stored credentials', and, when the environment supplies a
/// credential (`ARCGIS_HOST` and the rest), the environment's, in memory, for the URLs it covers.
///
/// Choosing a manager is the library's decision (``EnvironmentCredentials/answers(for:in:askingTheServer:)``,
/// without asking the server): a URL
/// is the environment's when it is the portal's, or an ArcGIS Server that the portal lists among
/// its servers (`portals/self/servers`, read with the environment's credential). The environment's
/// manager signs in at the start, so the choice contacts no host but the environment's portal.
final class ServeManagers: Sendable {
    let stored: AuthenticationManager
    private let environment: (credentials: EnvironmentCredentials, manager: AuthenticationManager)?
    /// The stored API keys as last read, with the stores' change stamps taken before.
    private let storedKeys = ChangeStampedValue<[APIKeyCredential]>()
    /// The backends of the stored credentials' stores, each once (``distinctBackends(of:)``).
    private let backends: [any CredentialStorageBackend]

    private init(
        stored: AuthenticationManager,
        environment: (credentials: EnvironmentCredentials, manager: AuthenticationManager)?
    ) {
        self.stored = stored
        self.environment = environment
        backends = Self.distinctBackends(of: stored)
    }

    /// The managers for `global`'s store and transport; the environment's signs in at once.
    static func make(_ global: GlobalOptions) async throws -> ServeManagers {
        // As many connections to one server as serve has places for clients: a client that stalls
        // a streamed answer holds one until the stall timeout, and 8 (the default) such clients held
        // back every other request to that server.
        var configuration = global.transportConfiguration
        configuration.maxConnectionsPerHost = Serve.maximumConnections
        let transport = CurlTransport(configuration: configuration)
        let stored = try global.makeManager(transport: transport)
        guard let credentials = try EnvironmentCredentials.read() else {
            return ServeManagers(stored: stored, environment: nil)
        }
        let manager = try GlobalOptions.makeManager(
            store: global.store, verbose: global.verbose, transport: transport, environment: credentials)
        // (A key from a file is read again when the file changes: a rotated key without a restart.)
        try await credentials.present(in: manager)
        try await credentials.signIn(in: manager)
        return ServeManagers(stored: stored, environment: (credentials, manager))
    }

    /// The manager for `url`, with the stored credentials as they are now (another process may
    /// have signed in, out or switched since the last request): the environment's when its
    /// credential covers the URL, else the stored credentials'. Contacts nothing but the
    /// environment's portal.
    func manager(for url: URL) async throws -> AuthenticationManager {
        try await reread()
        guard let environment else { return stored }
        let answers = try await environment.credentials.answers(
            for: url, in: environment.manager, askingTheServer: false)
        return answers ? environment.manager : stored
    }

    /// Makes the stored credentials' manager see its stores as they are now, and gives it the
    /// stored API keys (``AuthenticationManager/apiKeys``: each request takes the one for its URL;
    /// a key that is no longer stored is never kept).
    ///
    /// The stores are read again (their caches dropped: the next question reads the backend, and
    /// the API keys read) only when a backend's change stamp differs from the one taken before the
    /// last reading, or is unknown (``CredentialStorageBackend/changeStamp``), and at least every
    /// ``ChangeStampedValue/maximumAge`` (2 s: a change that leaves no stamp, such as a logout run
    /// with another `XDG_RUNTIME_DIR`, counts within it): a request after no change costs a few
    /// `stat`s, not the keyring's D-Bus round trips.
    func reread() async throws {
        let manager = stored
        let readAt = ContinuousClock.now
        let stamps = backends.map(\.changeStamp)
        let keys: [APIKeyCredential]
        if let known = storedKeys.value(at: stamps) {
            keys = known
        } else {
            manager.arcGISCredentialStore.invalidateCache()
            manager.iapCredentialStore.invalidateCache()
            manager.networkCredentialStore.invalidateCache()
            keys = try await manager.storedAPIKeys()
            storedKeys.keep(keys, readAfter: stamps, readAt: readAt)
        }
        // Each request takes the key for its own URL (the library's choice): the list is set only
        // when it changed, never per request, so requests for two portals never see each other's key.
        if manager.apiKeys != keys { manager.apiKeys = keys }
        // (A key adopted for one URL, as `token` does, while the store changed under it, is never kept.)
        if let adopted = manager.apiKey, !keys.contains(adopted) { manager.apiKey = nil }
    }

    /// The backends of `manager`'s stores, each once (the stores usually share one), whose change
    /// stamps ``reread()`` takes: a manager's stores and their backends are set when it is made.
    static func distinctBackends(of manager: AuthenticationManager) -> [any CredentialStorageBackend] {
        var seen: [ObjectIdentifier] = []
        var backends: [any CredentialStorageBackend] = []
        for backend in [
            manager.arcGISCredentialStore.backend, manager.iapCredentialStore.backend,
            manager.networkCredentialStore.backend,
        ] {
            if type(of: backend) is AnyClass {
                let identity = ObjectIdentifier(backend as AnyObject)
                if seen.contains(identity) { continue }
                seen.append(identity)
            }
            backends.append(backend)
        }
        return backends
    }
}
