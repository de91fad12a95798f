import Foundation
import PortalAuthIAP
import PortalAuthPregeneratedToken
import Synchronization
import Testing

@testable import PortalAuth

/// A transport that records the ArcGIS token each request carried and answers `{}`, or the
/// ArcGIS error 498 to the token it refuses.
final class TokenRecordingTransport: HTTPTransport {
    let tokens = Mutex<[String?]>([])
    /// The `Authorization` header of each request.
    let authorizations = Mutex<[String?]>([])
    let refused: String?
    /// The proxy's token the proxy refuses (401 with `WWW-Authenticate: Bearer`).
    let proxyRefuses: String?

    /// Where a URL ending in a key redirects (302) the first time it is asked for.
    let redirects: Mutex<[String: String]>

    init(
        refusing refused: String? = nil, proxyRefusing proxyRefuses: String? = nil, redirects: [String: String] = [:]
    ) {
        self.refused = refused
        self.proxyRefuses = proxyRefuses
        self.redirects = Mutex(redirects)
    }

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        let token = request.header("X-Esri-Authorization").map { String($0.dropFirst("Bearer ".count)) }
        tokens.withLock { $0.append(token) }
        authorizations.withLock { $0.append(request.header("Authorization")) }
        let path = request.url.path()
        if let location = redirects.withLock({ kept in
            kept.first { path.hasSuffix($0.key) }.map { kept.removeValue(forKey: $0.key)! }
        }) {
            return TransportResponse(status: 302, headers: [("Location", location)], body: [], url: request.url)
        }
        if let proxyRefuses, request.header("Authorization") == "Bearer " + proxyRefuses {
            return TransportResponse(
                status: 401, headers: [("WWW-Authenticate", "Bearer")], body: [], url: request.url)
        }
        let body = token != nil && token == refused ? #"{"error":{"code":498,"message":"Invalid token."}}"# : "{}"
        return TransportResponse(
            status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8), url: request.url)
    }
}

/// A transport that holds every request until ``releaseAll()``, then answers as ``recording`` does.
final class HoldingTransport: HTTPTransport {
    let recording = TokenRecordingTransport()
    /// How many requests it holds or held.
    let entered = Mutex(0)
    /// No free place until released.
    private let released = AsyncGate(limit: 0)

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        entered.withLock { $0 += 1 }
        await released.acquire()
        return try await recording.send(request, options: options)
    }

    /// Lets every request held, and every one after, through.
    func releaseAll() {
        for _ in 0..<1_000 { released.release() }
    }
}

/// `send(_:as:)`: a request forwarded on a decision carries that decision's
/// credential in its first attempt (decided once, as `serve` forwards), and only for the URL it was
/// made for; every later attempt decides anew.
@Suite struct SendAsDecidedTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    var url: URL { URL(string: portal.url + "/sharing/rest/content/items/1")! }

    func manager(_ transport: any HTTPTransport) async throws -> AuthenticationManager {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
        manager.arcGISCredentialStore.register(PregeneratedTokenCredential.self)
        try await store("t", in: manager, origin: .signIn)
        return manager
    }

    func store(_ token: String, in manager: AuthenticationManager, origin: CredentialOrigin) async throws {
        let info = TokenInfo(accessToken: token, expirationDate: Date().addingTimeInterval(86_400), isSSLRequired: true)
        try await manager.arcGISCredentialStore.commit(
            PregeneratedTokenCredential(serverContext: portal, tokenInfo: info), origin: origin)
    }

    @Test func theFirstAttemptCarriesTheDecisionsCredentialWithoutDecidingAgain() async throws {
        let transport = TokenRecordingTransport()
        let manager = try await manager(transport)
        guard case .decided(let decision) = try await manager.forwardingPermission(for: url) else {
            Issue.record("no decision for \(url)")
            return
        }
        // Replaced after the decision: the request sent on it carries what was decided; one sent
        // without it, what the store holds now.
        try await store("t2", in: manager, origin: .replacement)
        _ = try await manager.send(ArcGISRequest(url: url), as: decision)
        _ = try await manager.send(ArcGISRequest(url: url))
        #expect(transport.tokens.withLock { $0 } == ["t", "t2"])
    }

    @Test func aDecisionForAnotherURLIsNotUsed() async throws {
        let transport = TokenRecordingTransport()
        let manager = try await manager(transport)
        let decision = try await manager.forwardingDecision(for: url)
        try await store("t2", in: manager, origin: .replacement)
        let other = URL(string: portal.url + "/sharing/rest/content/items/2")!
        _ = try await manager.send(ArcGISRequest(url: other), as: decision)
        #expect(transport.tokens.withLock { $0 } == ["t2"])
    }

    @Test func theProxysCredentialTheDecisionGaveGoesWithTheFirstAttempt() async throws {
        let transport = TokenRecordingTransport()
        let manager = try await manager(transport)
        manager.iapCredentialStore.register(IAPCredential.self)
        try await manager.iapCredentialStore.commit(try proxy("p1"), origin: .signIn)
        let decision = try await manager.forwardingDecision(for: url)
        #expect(decision.proxy?.tokenInfo.accessToken == "p1")
        try await manager.iapCredentialStore.commit(try proxy("p2"), origin: .replacement)
        _ = try await manager.send(ArcGISRequest(url: url), as: decision)
        _ = try await manager.send(ArcGISRequest(url: url))
        #expect(transport.authorizations.withLock { $0 } == ["Bearer p1", "Bearer p2"])
    }

    /// A proxy's refusal is answered for the token the attempt carried: one stored meanwhile (renewed
    /// by another process) is taken as it is, not renewed again.
    @Test func aProxysRefusalIsAnsweredForTheTokenTheAttemptCarried() async throws {
        let transport = TokenRecordingTransport(proxyRefusing: "p1")
        let manager = try await manager(transport)
        manager.iapCredentialStore.register(IAPCredential.self)
        try await manager.iapCredentialStore.commit(try proxy("p1"), origin: .signIn)
        let decision = try await manager.forwardingDecision(for: url)
        try await manager.iapCredentialStore.commit(try proxy("p2"), origin: .replacement)
        _ = try await manager.send(ArcGISRequest(url: url), as: decision)
        #expect(transport.authorizations.withLock { $0 } == ["Bearer p1", "Bearer p2"])
    }

    /// The proxy's token never goes over plain http: the request is refused and nothing is sent.
    @Test func theProxysTokenIsNeverSentOverPlainHTTP() async throws {
        let transport = TokenRecordingTransport()
        let manager = try await manager(transport)
        manager.iapCredentialStore.register(IAPCredential.self)
        try await manager.iapCredentialStore.commit(try proxy("p1"), origin: .signIn)
        let plain = URL(string: "http://host.example.com/files/a.json")!
        let error = await #expect(throws: PortalAuthError.self) {
            _ = try await manager.send(ArcGISRequest(url: plain))
        }
        #expect(error?.code == .insecureTransport && error?.message.contains("identity-aware proxy") == true)
        #expect(transport.authorizations.withLock { $0 }.isEmpty)
    }

    func proxy(_ token: String) throws -> IAPCredential {
        let entra = "https://login.example.com/tenant/oauth2/v2.0"
        let configuration = try IAPConfiguration(
            authorizeURL: URL(string: entra + "/authorize")!, tokenURL: URL(string: entra + "/token")!,
            logoutURL: URL(string: entra + "/logout")!, clientID: "iap-client", scopes: ["openid"],
            hostsBehindProxy: ["host.example.com"])
        return IAPCredential(
            configuration: configuration, redirectURI: "http://127.0.0.1:1/iap/callback",
            accessToken: TokenInfo(
                accessToken: token, expirationDate: Date().addingTimeInterval(3600), isSSLRequired: true),
            idToken: nil, refreshToken: nil, grantedScopes: [], username: "alice@example.com")
    }

    @Test func aDecisionAnotherManagerMadeIsNotUsed() async throws {
        let other = try await manager(TokenRecordingTransport())
        let decision = try await other.forwardingDecision(for: url)
        let transport = TokenRecordingTransport()
        let manager = try await manager(transport)
        try await store("t2", in: manager, origin: .replacement)
        _ = try await manager.send(ArcGISRequest(url: url), as: decision)
        #expect(transport.tokens.withLock { $0 } == ["t2"])
    }

    @Test func theAttemptAfterARedirectDecidesAnew() async throws {
        let transport = TokenRecordingTransport(redirects: ["items/1": portal.url + "/sharing/rest/content/items/3"])
        let manager = try await manager(transport)
        let decision = try await manager.forwardingDecision(for: url)
        try await store("t2", in: manager, origin: .replacement)
        _ = try await manager.send(ArcGISRequest(url: url), as: decision)
        #expect(transport.tokens.withLock { $0 } == ["t", "t2"])
    }

    /// A request that waited for its host's gate is decided again: a credential stored while it
    /// waited wins over the decision made before.
    @Test(.timeLimit(.minutes(1))) func anAttemptThatWaitedForItsHostsGateDecidesAnew() async throws {
        let transport = HoldingTransport()
        let manager = try await manager(transport)
        let decision = try await manager.forwardingDecision(for: url)
        let limit = AuthenticationManager.requestsInFlightPerHost
        let holders = (0..<limit).map { _ in Task { try await manager.send(ArcGISRequest(url: url)) } }
        while transport.entered.withLock({ $0 }) < limit { await Task.yield() }
        let waiting = Task { try await manager.send(ArcGISRequest(url: url), as: decision) }
        let gate = manager.requestGate(for: try ServerContext.host(of: url))
        while gate.waiting == 0 { await Task.yield() }
        try await store("t2", in: manager, origin: .replacement)
        transport.releaseAll()
        for holder in holders { _ = try await holder.value }
        _ = try await waiting.value
        // (The holders carried the token stored when they went; the request that waited, the new one.)
        let tokens = transport.recording.tokens.withLock { $0 }
        #expect(tokens.count == limit + 1 && tokens.filter { $0 == "t2" }.count == 1, "\(tokens)")
    }

    @Test func theRetryAfterAChallengeDecidesAnew() async throws {
        let transport = TokenRecordingTransport(refusing: "t")
        let manager = try await manager(transport)
        let decision = try await manager.forwardingDecision(for: url)
        try await store("t2", in: manager, origin: .replacement)
        _ = try await manager.send(ArcGISRequest(url: url), as: decision)
        #expect(transport.tokens.withLock { $0 } == ["t", "t2"])
    }
}
