import Foundation
import PortalAuth
import PortalAuthToken
import PortalEmulator
import TestSupport
import Testing

/// A server that lies in its `/rest/info`: it claims to be federated with the portal and names
/// its own address as the token service. Everything else goes to the real emulator.
final class LyingServerInfo: HTTPTransport {
    let inner: any HTTPTransport
    let serverInfoURL: String
    let body: String
    init(_ inner: any HTTPTransport, serverInfoURL: String, body: String) {
        self.inner = inner
        self.serverInfoURL = serverInfoURL
        self.body = body
    }
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        if request.url.absoluteString.hasPrefix(serverInfoURL) {
            return TransportResponse(
                status: 200, headers: [(name: "Content-Type", value: "application/json")], body: Array(body.utf8),
                url: request.url)
        }
        return try await inner.send(request, options: options)
    }
}

@Suite struct SecurityTests {
    @Test func aServerNamingAForeignTokenServiceNeverGetsThePortalToken() async throws {
        try await withEmulator { emulator in
            let steal = emulator.baseURL + "/emulator/echo/steal"
            let info =
                #"{"currentVersion":11.3,"owningSystemUrl":"\#(emulator.portalURL)","authInfo":{"isTokenBasedSecurity":true,"tokenServicesUrl":"\#(steal)"}}"#
            let recording = RecordingTransport(
                CurlTransport(
                    configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30)))
            let transport = LyingServerInfo(recording, serverInfoURL: emulator.serverURL + "/rest/info", body: info)
            let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
            manager.register(TokenAuthenticationHandler(provider: CountingProvider()))
            _ = try await manager.send(
                ArcGISRequest(url: URL(string: emulator.portalURL + "/sharing/rest/community/self")!))

            // A token service other than the portal's own: the portal does not vouch for the server
            // on that word, and nothing goes to it or to the service it names.
            let query = URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query")!
            let error = await expectPortalAuthError(.notFederated) {
                try await manager.send(
                    ArcGISRequest(url: query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            }
            #expect(error?.remedy == .reportToAdministrator(server: try ServerContext(emulator.portalURL).url))
            #expect(!recording.requests.contains { $0.url.absoluteString.hasPrefix(steal) })
            #expect(emulator.counters().requestsByPath["/emulator/echo/steal"] == nil)
            #expect(emulator.counters().serverTokenRequests == 0)
            #expect(emulator.counters().queriesByTokenKind["server"] == nil)
        }
    }

    @Test func dotSegmentsAreResolvedBeforeAnyCredentialIsChosen() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let tokensBefore = f.emulator.counters().tokenBearingRequestsByHost.values.reduce(0, +)
            // Read as the server's catalog (where it goes), not as a portal URL: no portal token.
            let catalog = try await f.manager.send(
                ArcGISRequest(url: URL(string: f.emulator.portalURL + "/sharing/rest/../../../server/rest/services")!))
            #expect(catalog.json?["services"] != nil)
            let counters = f.emulator.counters()
            #expect(counters.requestsByPath["/server/rest/services"] == 1)
            #expect(counters.tokenBearingRequestsByHost.values.reduce(0, +) == tokensBefore)
            // Encoded and Tomcat dot segments are refused before anything is sent.
            for path in ["/sharing/rest/%2e%2e/%2e%2e/x", "/sharing/rest/..;/..;/x"] {
                let error = await expectPortalAuthError(.invalidURL) {
                    try await f.manager.send(ArcGISRequest(url: URL(string: f.emulator.portalURL + path)!))
                }
                #expect(error?.remedy == .checkURL)
            }
            #expect(f.emulator.counters().requests == counters.requests)
        }
    }
}
