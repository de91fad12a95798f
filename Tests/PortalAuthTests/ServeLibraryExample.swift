// The program of docs/serve.md's "From a Swift program", as printed there: ServeLibraryTests
// checks that the two are the same, and runs it.
import PortalAuth
import PortalAuthServe
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Serves the services `portal` vouches for to local programs, signed in as `username`, on a free
/// loopback port, until the task is cancelled; `started` gets the base URL, secret included.
func serveSignedIn(
    portal: URL, username: String, password: String, caBundlePath: String? = nil,
    started: @Sendable (String) -> Void
) async throws {
    let transport = CurlTransport(configuration: TransportConfiguration(caBundlePath: caBundlePath))
    let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
    let provider = StaticUsernamePasswordProvider(username: username, password: password)
    manager.register(TokenAuthenticationHandler(provider: provider))
    _ = try await manager.credential(for: portal, interactive: true)

    let stored = StoredCredentialSource(manager: manager, followingChanges: false)
    let secret = try ServeSecret.current(in: manager.arcGISCredentialStore.backend)
    let server = try LocalCredentialServer(
        socket: ListeningSocket.bind(LoopbackAddress.parse("127.0.0.1:0", defaultPort: 0)), secret: secret,
        managers: ServeManagers(stored: stored, environment: nil), maximumConnections: 16, stallTimeout: 60,
        taskExecutor: try transport.taskExecutor())
    started(LocalCredentialServer.baseURL(server.address, port: server.address.port, secret: secret))
    await withTaskCancellationHandler {
        await server.run()
    } onCancel: {
        server.stop()
    }
}
