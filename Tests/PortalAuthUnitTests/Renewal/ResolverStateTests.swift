import Foundation
import Testing

@testable import PortalAuth

/// The resolvers' decisions, without I/O: what each one concludes from what it knows, in the
/// style of async-http-client's `RedirectState` tests.
@Suite struct FederationStateTests {
    let key = "https://portal.example/portal https://server.example/server"

    @Test func aServerNoOneVouchesForIsAskedOfThePortal() {
        #expect(FederationState().route(to: key, portalToken: "t1", isOnlineHosted: false) == .exchange)
    }

    @Test func arcGISOnlineHostedServicesTakeThePortalToken() {
        #expect(FederationState().route(to: key, portalToken: "t1", isOnlineHosted: true) == .usePortalToken)
    }

    @Test func aListedServerTakesThePortalTokenFromThenOn() {
        let state = FederationState()
        state.recordListed(key)
        #expect(state.route(to: key, portalToken: "t1", isOnlineHosted: false) == .usePortalToken)
        #expect(state.route(to: key + "2", portalToken: "t1", isOnlineHosted: false) == .exchange)
    }

    @Test func aRefusedTokenIsRefusedAgainButANewTokenIsAskedOfThePortal() {
        let state = FederationState()
        state.recordUnlisted(key, refusedToken: "t1")
        #expect(state.route(to: key, portalToken: "t1", isOnlineHosted: false) == .refuse)
        #expect(state.route(to: key, portalToken: "t2", isOnlineHosted: false) == .exchange)
    }

    @Test func refusalComesBeforeEverythingElse() {
        #expect(
            FederationState.route(refusedToken: "t", listed: true, portalToken: "t", isOnlineHosted: true) == .refuse)
    }

    @Test func aServerListIsKeptForTheTokenItWasReadWith() {
        let state = FederationState()
        state.keep(FederatedServerList(token: "t1", roots: ["https://server.example/server"]), of: "p")
        #expect(state.serverList(of: "p", readWith: "t1")?.roots == ["https://server.example/server"])
        #expect(state.serverList(of: "p", readWith: "t2") == nil)
        #expect(state.serverList(of: "q", readWith: "t1") == nil)
    }
}

@Suite struct NetworkResolverDecisionTests {
    static let url = URL(string: "https://host.example/x")!

    func response(_ status: Int, headers: [(name: String, value: String)] = [], body: String = "") -> TransportResponse
    {
        TransportResponse(status: status, headers: headers, body: Array(body.utf8), url: Self.url)
    }

    @Test func aPasswordIsAcceptedByAnAnswerThatIsNeitherA401NorAnError() {
        let password: Set<NetworkCredentialCategory> = [.httpAuthentication]
        #expect(NetworkResolver.isAccepted(password, refused: [], status: 200))
        #expect(!NetworkResolver.isAccepted(password, refused: [], status: 404))
        #expect(!NetworkResolver.isAccepted(password, refused: [.httpAuthentication], status: 401))
    }

    @Test func aKeyOrCertificateIsAcceptedOnceTheHandshakeWorked() {
        #expect(NetworkResolver.isAccepted([.serverTrust], refused: [], status: 500))
        #expect(NetworkResolver.isAccepted([.clientCertificate], refused: [], status: 404))
        #expect(!NetworkResolver.isAccepted([.clientCertificate], refused: [.clientCertificate], status: 400))
    }

    @Test func whatAnAnswerRefuses() {
        #expect(NetworkResolver.refusedCategories(by: response(200)).isEmpty)
        let basic = response(401, headers: [("WWW-Authenticate", "Basic realm=\"r\"")])
        #expect(NetworkResolver.refusedCategories(by: basic) == [.httpAuthentication])
        let demand = response(400, body: "400 No required SSL certificate was sent")
        #expect(NetworkResolver.refusedCategories(by: demand) == [.clientCertificate])
    }

    @Test func anotherRequestsAnswerIsTakenUnlessUsedOrRefused() throws {
        let host = try ServerContext.host(of: Self.url)
        let credential = StubNetworkCredential(host: host, password: "one")
        let recent = ProvisionalNetworkCredential(credential)
        let category = NetworkCredentialCategory.httpAuthentication
        #expect(NetworkResolver.reuses(recent, category: category, used: [], refused: TransportOptions()))
        #expect(!NetworkResolver.reuses(recent, category: category, used: [recent], refused: TransportOptions()))
        #expect(!NetworkResolver.reuses(recent, category: category, used: [], refused: recent.options.only(category)))
    }
}

@Suite struct IAPResolverDecisionTests {
    /// A Bearer 401 is a proxy's only where it is covered; a redirect (302, 303, 307) is one to a
    /// sign-in page or when a plugin recognizes it; nothing else is.
    @Test(arguments: [
        (401, true, true, false, false, true),
        (401, true, false, false, true, false),
        (401, false, true, true, true, false),
        (302, false, false, true, false, true),
        (307, false, false, false, true, true),
        (301, false, true, true, true, false),
        (303, false, true, false, false, false),
    ])
    func signInDemand(
        status: Int, bearer: Bool, covered: Bool, signInPage: Bool, recognized: Bool, expected: Bool
    )
        async
    {
        let isDemand = await IAPResolver.isSignInDemand(
            status: status, bearer: bearer, covered: { covered }, signInPage: signInPage, recognized: { recognized })
        #expect(isDemand == expected)
    }
}

@Suite struct RequestLoopDecisionTests {
    static let url = URL(string: "https://host.example/server/rest/services/A/FeatureServer/0")!

    func outcome(
        _ status: Int, _ body: String, headers: [(name: String, value: String)] = [], token: Bool = false
    ) throws
        -> AttemptOutcome
    {
        let credential: (any ArcGISCredential)? =
            token
            ? FederatedTokenCredential(
                serverContext: try ServerContext("https://host.example/server"),
                portal: try ServerContext("https://host.example/portal"),
                tokenInfo: TokenInfo(accessToken: "t", expirationDate: nil, isSSLRequired: true), username: nil,
                referer: nil) : nil
        let attempt = RequestAttempt(
            url: Self.url, host: try ServerContext.host(of: Self.url), credential: credential,
            options: TransportOptions())
        let response = TransportResponse(status: status, headers: headers, body: Array(body.utf8), url: Self.url)
        return AuthenticationManager.classifyAnswer(response, of: attempt)
    }

    @Test func a499IsAChallengeAndSoIs403GWM0003WithoutAToken() throws {
        guard case .arcGISChallenge(let error) = try outcome(200, #"{"error":{"code":499,"message":"Token Required"}}"#)
        else { Issue.record("not a challenge"); return }
        #expect(error.code == 499)
        let forbidden = #"{"error":{"code":403,"message":"no","messageCode":"GWM_0003"}}"#
        guard case .arcGISChallenge = try outcome(200, forbidden) else { Issue.record("not a challenge"); return }
        guard case .failure = try outcome(200, forbidden, token: true) else { Issue.record("not a failure"); return }
    }

    @Test func redirectsHTTPAuthenticationAndSuccess() throws {
        guard
            case .redirect(302, "https://elsewhere/") = try outcome(
                302, "", headers: [("Location", "https://elsewhere/")])
        else { Issue.record("not a redirect"); return }
        guard case .httpAuthenticationChallenge = try outcome(401, "", headers: [("WWW-Authenticate", "Basic")]) else {
            Issue.record("not HTTP authentication")
            return
        }
        guard case .done = try outcome(200, #"{"ok":true}"#) else { Issue.record("not done"); return }
        guard case .failure = try outcome(500, "") else { Issue.record("not a failure"); return }
    }

    @Test func theLedgerAnswersEachChallengeOnce() throws {
        var ledger = ChallengeLedger()
        let host = try ServerContext.host(of: Self.url)
        let entries: [ChallengeLedger.Entry] = [
            .arcGIS, .arcGIS, .network(host: host, .httpAuthentication), .network(host: host, .serverTrust),
            .network(host: host, .httpAuthentication), .iap(host: host),
        ]
        let answered = entries.map { ledger.answer($0) }
        #expect(answered == [true, false, true, true, false, true])
    }
}

@Suite struct CredentialScopeTests {
    @Test func keysAndContainment() throws {
        let portal = try ServerContext("https://host.example/portal")
        #expect(CredentialScope.serverContext(portal).storeKey == "https://host.example/portal")
        #expect(CredentialScope.serverContext(portal).contains(URL(string: "https://host.example/portal/sharing")!))
        #expect(!CredentialScope.serverContext(portal).contains(URL(string: "https://host.example/server")!))
        let host = try ServerContext.host(of: URL(string: "https://host.example/x")!)
        #expect(CredentialScope.host(host).contains(URL(string: "https://host.example/server")!))
        #expect(!CredentialScope.host(host).contains(URL(string: "https://host.example:8443/server")!))
        #expect(
            !CredentialScope.hosts(identifier: "https://idp/token#client_id=c").contains(URL(string: "https://idp/")!))
        #expect(CredentialScope.hosts(identifier: "id").renewalLockKey == "renew proxy id")
        #expect(CredentialScope.serverContext(portal).renewalLockKey == "renew https://host.example/portal")
    }

    @Test func theStoreLooksUpByScopeAndUser() async throws {
        let store = NetworkCredentialStore(backend: MemoryCredentialBackend())
        store.register(StubNetworkCredential.self)
        let host = try ServerContext.host(of: URL(string: "https://host.example/x")!)
        try await store.add(StubNetworkCredential(host: host, password: "p"))
        #expect(try await store.credentials(in: .host(host)).count == 1)
        #expect(try await store.credentials(in: .host(host), username: "alice").count == 1)
        #expect(try await store.credentials(in: .host(host), username: "bob").isEmpty)
        #expect(try store.storedCredential(for: URL(string: "https://host.example/y")!) != nil)
        #expect(try await store.credential(for: URL(string: "https://other.example/y")!) == nil)
    }
}

/// A network credential with an HTTP password, for the decisions above.
struct StubNetworkCredential: NetworkCredential {
    static let kind = "stub-http-password"
    var host: ServerContext
    var password: String
    var username: String? { "alice" }
    func apply(to options: inout TransportOptions) {
        options.httpAuthentication = .init(username: "alice", password: password, schemes: .basic)
    }
}
