import Foundation
import PortalAuthToken
import Testing

@testable import PortalAuth

/// The decision's usual case: a stored credential of the user's own, not due for renewal, whose
/// scope covers the URL, is decided from one read of the store (two for a federated server's
/// token: its own and its portal's), which is what `serve` asks for every request it forwards.
/// Every other case takes the whole decision, and gives what it gave before.
@Suite struct StoredDecisionTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    let server = try! ServerContext("https://host.example.com/server")
    var search: URL { URL(string: portal.url + "/sharing/rest/search?q=x")! }
    var layer: URL { URL(string: server.url + "/rest/services/Parcels/FeatureServer/0/query?where=1%3D1")! }

    func token(_ text: String, expiresIn seconds: TimeInterval = 86_400) -> TokenInfo {
        TokenInfo(accessToken: text, expirationDate: Date().addingTimeInterval(seconds), isSSLRequired: true)
    }

    /// A manager whose store holds `username`'s portal token (a password sign-in, password not kept).
    func manager(
        username: String = "alice", portalToken: TokenInfo? = nil, renewal: (any UnattendedRenewal)? = nil,
        transport: any HTTPTransport = NoNetworkTransport()
    ) async throws -> AuthenticationManager {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
        if let renewal { manager.setUnattendedRenewal(renewal) }
        manager.arcGISCredentialStore.register(TokenCredential.self)
        try await manager.arcGISCredentialStore.commit(
            tokenCredential(username: username, token: portalToken ?? token("portal-token")), origin: .signIn)
        return manager
    }

    func tokenCredential(username: String, token: TokenInfo) -> TokenCredential {
        TokenCredential(
            serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
            username: username, tokenInfo: token, referer: nil, tokenExpirationMinutes: 60)
    }

    /// Stores the server's token, issued by the portal for `username`.
    func storeServerToken(for username: String, in manager: AuthenticationManager) async throws {
        try await manager.arcGISCredentialStore.commit(
            FederatedTokenCredential(
                serverContext: server, portal: portal, tokenInfo: token("server-token"), username: username,
                referer: nil),
            origin: .federation)
    }

    @Test func aStoredCredentialIsDecidedFromOneReadOfTheStore() async throws {
        let manager = try await manager()
        let store = manager.arcGISCredentialStore
        var before = store.reads
        let decision = try await manager.decision(for: search, includingProxy: false)
        #expect(decision.credential?.tokenInfo.accessToken == "portal-token")
        #expect(store.reads - before == 1)
        // A forwarded request's decision asks the store the same once (and the proxy's store once).
        before = store.reads
        let proxies = manager.iapCredentialStore.reads
        let forwarded = try await manager.forwardingDecision(for: search)
        #expect(forwarded.credential?.tokenInfo.accessToken == "portal-token" && forwarded.proxy == nil)
        #expect(store.reads - before == 1)
        #expect(manager.iapCredentialStore.reads - proxies == 1)
    }

    @Test func aFederatedServersTokenIsDecidedFromItsOwnAndItsPortalsRead() async throws {
        let manager = try await manager()
        try await storeServerToken(for: "alice", in: manager)
        let before = manager.arcGISCredentialStore.reads
        let decision = try await manager.forwardingDecision(for: layer)
        #expect(decision.credential?.tokenInfo.accessToken == "server-token")
        #expect(decision.scoped?.covers(layer) == true)
        #expect(manager.arcGISCredentialStore.reads - before == 2)
    }

    /// A request the loop decides itself asks each store once an attempt: the URL's ArcGIS
    /// credential (and a federated server token's portal's), the host's network credentials, the
    /// proxy's; one sent on a forwarding decision asks only the network store (and the proxy's,
    /// the decision having found no proxy credential).
    @Test func aRequestAsksEachStoreOnceAnAttempt() async throws {
        let manager = try await manager(transport: TokenRecordingTransport())
        try await storeServerToken(for: "alice", in: manager)
        func reads() -> [Int] {
            [
                manager.arcGISCredentialStore.reads, manager.networkCredentialStore.reads,
                manager.iapCredentialStore.reads,
            ]
        }
        for (url, arcGIS) in [(search, 1), (layer, 2)] {
            var before = reads()
            _ = try await manager.send(ArcGISRequest(url: url))
            #expect(zip(reads(), before).map { $0 - $1 } == [arcGIS, 1, 1], "\(url)")
            let decision = try await manager.forwardingDecision(for: url)
            before = reads()
            _ = try await manager.send(ArcGISRequest(url: url), as: decision)
            #expect(zip(reads(), before).map { $0 - $1 } == [0, 1, 1], "\(url)")
        }
    }

    /// A token due for renewal is renewed first (by the program's unattended renewal here), for the
    /// URL's own credential and for a federated server's portal.
    @Test func aCredentialDueForRenewalIsRenewedFirst() async throws {
        let renewal = CredentialDecisionTests.Renewal(
            can: true, renewed: tokenCredential(username: "alice", token: token("renewed-token")))
        let manager = try await manager(portalToken: token("expiring-token", expiresIn: 60), renewal: renewal)
        let decision = try await manager.decision(for: search, includingProxy: false)
        #expect(decision.credential?.tokenInfo.accessToken == "renewed-token")

        let federated = try await self.manager(portalToken: token("expiring-token", expiresIn: 60), renewal: renewal)
        try await storeServerToken(for: "alice", in: federated)
        _ = try await federated.forwardingDecision(for: layer)
        let stored = try await federated.arcGISCredentialStore.credential(for: URL(string: portal.url)!)
        #expect(stored?.tokenInfo.accessToken == "renewed-token")
    }

    /// A token that requires https is not given for plain http: the portal's token, stored for a
    /// server it lists at an http address (as federation gives it), is refused, not given at once.
    @Test func aTokenThatRequiresHTTPSIsRefusedForHTTP() async throws {
        let manager = try await manager()
        let plainServer = try ServerContext("http://host.example.com/server")
        try await manager.arcGISCredentialStore.commit(
            FederatedTokenCredential(
                serverContext: plainServer, portal: portal, tokenInfo: token("server-token"), username: "alice",
                referer: nil),
            origin: .federation)
        let plain = URL(string: plainServer.url + "/rest/services/Parcels/MapServer")!
        #expect(try await manager.arcGISCredentialStore.credential(for: plain) != nil)
        for decide in [
            { try await manager.decision(for: plain, includingProxy: false) },
            { try await manager.forwardingDecision(for: plain) },
        ] {
            do {
                let decision = try await decide()
                Issue.record("decided \(decision.credential?.tokenInfo.accessToken ?? "nothing") for http")
            } catch let error as PortalAuthError {
                #expect(error.code == .insecureTransport, "\(error)")
            }
        }
    }

    /// A server token left by another account (before a switch, or by an earlier version) is never
    /// given: the whole decision obtains the server's token again for the active one (here it
    /// cannot: no network). (Only an item written outside the write path can be in this state.)
    @Test func anotherAccountsServerTokenIsNotGiven() async throws {
        let manager = try await manager(username: "alice")
        try await manager.arcGISCredentialStore.add(
            FederatedTokenCredential(
                serverContext: server, portal: portal, tokenInfo: token("bobs-server-token"), username: "bob",
                referer: nil))
        #expect(try await manager.arcGISCredentialStore.credential(for: layer)?.username == "bob")
        for decide in [
            { try await manager.decision(for: layer, includingProxy: false) },
            { try await manager.forwardingDecision(for: layer) },
        ] {
            let decision = try? await decide()
            #expect(decision?.credential?.tokenInfo.accessToken != "bobs-server-token")
        }
    }
}
