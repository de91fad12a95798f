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
    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> HTTPResponse {
        if request.url.absoluteString.hasPrefix(serverInfoURL) {
            return HTTPResponse(
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

            let query = URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query")!
            let count = try await manager.send(
                ArcGISRequest(url: query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect(count.json?["count"]?.doubleValue == 24)
            #expect(!recording.requests.contains { $0.url.absoluteString.hasPrefix(steal) })
            #expect(emulator.counters().requestsByPath["/emulator/echo/steal"] == nil)
            #expect(emulator.counters().serverTokenRequests == 1)
        }
    }

    @Test func dotSegmentsAreRefusedBeforeAnyCredentialIsChosen() async throws {
        try await withEmulator { emulator in
            let manager = AuthenticationManager(
                backend: MemoryCredentialBackend(),
                transport: CurlTransport(
                    configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30)))
            manager.register(TokenAuthenticationHandler(provider: CountingProvider()))
            let error = await expectPortalAuthError(.invalidURL) {
                try await manager.send(
                    ArcGISRequest(url: URL(string: emulator.portalURL + "/sharing/rest/../../../server/rest/services")!)
                )
            }
            #expect(error?.message.contains("..") == true)
            #expect(emulator.counters().requests == 0)
        }
    }
}
