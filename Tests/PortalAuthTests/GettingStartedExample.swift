// The program of the DocC article "Getting started"
// (Sources/PortalAuth/PortalAuth.docc/GettingStarted.md), as printed there: GettingStartedTests
// checks that the two are the same, and runs it.
import PortalAuth
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs in as `username` and counts the parcels of `layer` whose use is "Government".
func countGovernmentParcels(
    layer: URL, username: String, password: String, caBundlePath: String? = nil
) async throws -> Int {
    let transport = CurlTransport(configuration: TransportConfiguration(caBundlePath: caBundlePath))
    let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
    let provider = StaticUsernamePasswordProvider(username: username, password: password)
    manager.register(TokenAuthenticationHandler(provider: provider))

    let response = try await manager.send(
        ArcGISRequest(
            url: layer.appending(path: "query"),
            parameters: [("where", "UseType = 'Government'"), ("returnCountOnly", "true")]))
    return Int(response.json?["count"]?.doubleValue ?? 0)
}
