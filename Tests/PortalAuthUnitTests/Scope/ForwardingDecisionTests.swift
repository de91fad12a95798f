import Foundation
import PortalAuth
import PortalAuthPregeneratedToken
import Synchronization
import Testing

/// A transport that counts what it is asked to send, and answers nothing (the unit tier has no network).
final class CountingTransport: HTTPTransport {
    let sent = Mutex(0)

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        sent.withLock { $0 += 1 }
        throw PortalAuthError(.connectionFailed, "no network in unit tests", remedy: .none)
    }
}

/// The decision for a request forwarded for someone else (``AuthenticationManager/forwardingDecision(for:)``,
/// ``AuthenticationManager/mayForward(_:)``), which `serve` asks: made only where a credential is known,
/// so that no other host is ever contacted; a host with a network credential may be forwarded to.
@Suite struct ForwardingDecisionTests {
    let portal = try! ServerContext("https://host.example.com/portal")

    func manager() async throws -> (AuthenticationManager, CountingTransport) {
        let transport = CountingTransport()
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
        manager.arcGISCredentialStore.register(PregeneratedTokenCredential.self)
        let token = TokenInfo(accessToken: "t", expirationDate: Date().addingTimeInterval(86_400), isSSLRequired: true)
        try await manager.arcGISCredentialStore.commit(
            PregeneratedTokenCredential(serverContext: portal, tokenInfo: token), origin: .signIn)
        return (manager, transport)
    }

    @Test func aURLInsideAStoredCredentialsScopeIsForwardedWithIt() async throws {
        let (manager, transport) = try await manager()
        let url = URL(string: portal.url + "/sharing/rest/content/items/1")!
        #expect(try await manager.forwardingDecision(for: url).credential?.tokenInfo.accessToken == "t")
        #expect(try await manager.mayForward(url))
        #expect(transport.sent.withLock { $0 } == 0)
    }

    @Test(arguments: [
        "https://unknown.example.com/server/rest/services/Parcels/FeatureServer/0",
        "https://host.example.com:8443/arcgis/rest/services/x", "https://host.example.com/other/sharing/rest",
    ])
    func aURLNoCredentialReachesIsRefusedWithoutContactingIt(url: String) async throws {
        let (manager, transport) = try await manager()
        let target = URL(string: url)!
        #expect(try await !manager.mayForward(target))
        do {
            _ = try await manager.forwardingDecision(for: target)
            Issue.record("a decision for \(url)")
        } catch let error as PortalAuthError {
            #expect(error.meansNoCredentialCovers, "\(error)")
        }
        #expect(transport.sent.withLock { $0 } == 0)
    }

    @Test func aHostWithANetworkCredentialMayBeForwardedTo() async throws {
        let (manager, transport) = try await manager()
        let other = URL(string: "https://files.example.com/data/a.csv")!
        #expect(try await !manager.mayForward(other))
        manager.networkCredentialStore.register(StubNetworkCredential.self)
        try await manager.networkCredentialStore.commit(
            StubNetworkCredential(host: try ServerContext.host(of: other), password: "p"), origin: .signIn)
        #expect(try await manager.mayForward(other))
        #expect(transport.sent.withLock { $0 } == 0)
    }
}
