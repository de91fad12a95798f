import Foundation
import PortalAuth
import PortalAuthPregeneratedToken
import PortalAuthToken
import Synchronization
import Testing

/// The core's one decision for a URL (``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)``),
/// which `token`, `exec` and `serve` ask: a user credential wins, a stored API key is taken only
/// where none covers the URL and only inside its own scope, and nothing is an error with a remedy.
/// No network: every credential here is stored and good.
@Suite struct CredentialDecisionTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    let token = TokenInfo(
        accessToken: "user-token", expirationDate: Date().addingTimeInterval(86_400), isSSLRequired: true)

    func manager(user: Bool, key: Bool) async throws -> AuthenticationManager {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        manager.arcGISCredentialStore.register(PregeneratedTokenCredential.self)
        if user {
            try await manager.arcGISCredentialStore.commit(
                PregeneratedTokenCredential(serverContext: portal, tokenInfo: token), origin: .signIn)
        }
        if key {
            let key = try APIKeyCredential(apiKey: "AAPTstored", portalURL: URL(string: portal.url)!)
            try await manager.arcGISCredentialStore.commit(key, origin: .signIn)
        }
        return manager
    }

    var search: URL { URL(string: portal.url + "/sharing/rest/search?q=x")! }

    @Test func aUserCredentialWinsOverAStoredKey() async throws {
        let manager = try await manager(user: true, key: true)
        let decision = try await manager.decision(for: search, includingProxy: true)
        #expect(decision.credential?.tokenInfo.accessToken == "user-token")
        #expect(decision.scoped?.kind != .apiKey)
        #expect(decision.proxy == nil)
        #expect(manager.apiKey == nil)
    }

    @Test func aStoredKeyIsTakenWhereNoUserCredentialCoversTheURL() async throws {
        let manager = try await manager(user: false, key: true)
        let decision = try await manager.decision(for: search, includingProxy: false)
        #expect(decision.credential?.tokenInfo.accessToken == "AAPTstored")
        #expect(decision.scoped?.kind == .apiKey)
        // Where it may go is the key's own reach: the portal, not the rest of its host.
        #expect(decision.scoped?.covers(search) == true)
        #expect(decision.scoped?.covers(URL(string: "https://host.example.com/server/rest/services")!) == false)
        // The decision does not change the manager: it is asked again for another portal.
        #expect(manager.apiKey == nil)
    }

    @Test func twoPortalsKeysAreEachTakenForTheirOwnPortal() async throws {
        let manager = try await manager(user: false, key: true)
        let other = URL(string: "https://other.example.com/portal")!
        try await manager.arcGISCredentialStore.commit(
            try APIKeyCredential(apiKey: "AAPTother", portalURL: other), origin: .signIn)
        let first = try await manager.decision(for: search, includingProxy: false)
        let second = try await manager.decision(
            for: other.appendingPathComponent("sharing/rest/search"), includingProxy: false)
        #expect(first.credential?.tokenInfo.accessToken == "AAPTstored")
        #expect(second.credential?.tokenInfo.accessToken == "AAPTother")
    }

    // (A server's URL is not among them: the decision reads its `rest/info` to learn whether a
    // signed-in portal owns it, as `token` does; `forwardingDecision(for:)` never does.)
    @Test(arguments: [
        "https://other.example.com/portal/sharing/rest", "http://host.example.com/portal/sharing/rest",
        "https://host.example.com/portal2/sharing/rest",
    ])
    func nothingOutsideEveryScopeIsGiven(url: String) async throws {
        let manager = try await manager(user: false, key: true)
        do {
            _ = try await manager.decision(for: URL(string: url)!, includingProxy: true)
            Issue.record("a decision for \(url)")
        } catch let error as PortalAuthError {
            // (Not a failure to reach a server: the unit tier has none, and none is asked.)
            #expect(error.meansNoCredentialCovers, "\(error)")
        }
    }

    @Test func noCredentialIsAnErrorWithARemedy() async throws {
        let manager = try await manager(user: false, key: false)
        do {
            _ = try await manager.decision(for: search, includingProxy: true)
            Issue.record("a decision without a credential")
        } catch let error as PortalAuthError {
            #expect(error.code == .noCredential || error.code == .authenticationRequired)
            #expect(error.remedy != .none)
        }
    }

    /// A token that cannot renew stops working with its token; one that needs an unattended
    /// sign-in does too, unless the manager has a way to sign in again without anyone.
    @Test func theDecisionSaysUntilWhenTheCredentialCanBeRenewed() async throws {
        let pregenerated = try await manager(user: true, key: false).decision(for: search, includingProxy: false)
        #expect(pregenerated.renewal == .cannotRenew(endsAt: token.expirationDate))
        #expect(pregenerated.renewableUntil == token.expirationDate)
        #expect(pregenerated.source == nil)

        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        try await storeAlicesToken(in: manager)
        let stored = try await manager.decision(for: search, includingProxy: false)
        #expect(stored.renewal == .needsUnattendedSignIn)
        #expect(!stored.signsInUnattended && stored.renewableUntil == token.expirationDate)
        // An unattended renewal that cannot tell (or has no password for this user) changes nothing;
        // one that says it can renew this credential makes it last.
        manager.setUnattendedRenewal(Renewal(can: false))
        let unknown = try await manager.decision(for: search, includingProxy: false)
        #expect(!unknown.signsInUnattended && unknown.renewableUntil == token.expirationDate)
        manager.setUnattendedRenewal(Renewal(can: true))
        let kept = try await manager.decision(for: search, includingProxy: false)
        #expect(kept.signsInUnattended && kept.renewableUntil == nil)
    }

    /// What a program hands on for a URL may go to that URL: a stored token that requires https is
    /// not given for plain http, by the store's own answer (the fast path) or by the decision.
    @Test func aTokenThatRequiresHTTPSIsNotGivenForHTTP() async throws {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        try await storeAlicesToken(in: manager)
        // The portal's own token, for a server it lists at an http address (as federation gives it).
        let server = try ServerContext("http://host.example.com/server")
        try await manager.arcGISCredentialStore.commit(
            FederatedTokenCredential(
                serverContext: server, portal: portal, tokenInfo: token, username: "alice", referer: nil),
            origin: .federation)
        let https = URL(string: "https://host.example.com/server/rest/services/Parcels/MapServer")!
        #expect(try manager.arcGISCredentialStore.storedScopedCredential(for: https) == nil)
        let plain = URL(string: server.url + "/rest/services/Parcels/MapServer")!
        #expect(try manager.arcGISCredentialStore.storedScopedCredential(for: plain) == nil)
        await #expect(throws: PortalAuthError.self) { try await manager.decision(for: plain, includingProxy: false) }
    }

    /// A chain's decision is its answering source's manager's, and names that source.
    @Test func aChainsDecisionNamesTheSourceItCameFrom() async throws {
        let stored = StoredCredentialSource(manager: try await manager(user: true, key: false), followingChanges: false)
        let chain = CredentialSourceChain([NamedSource(answering: false), stored])
        let decision = try await chain.decision(for: search, askedBy: .proxy)
        #expect(decision.credential?.tokenInfo.accessToken == "user-token")
        #expect(decision.source?.description == stored.description)
        do {
            _ = try await CredentialSourceChain([NamedSource(answering: false)]).decision(
                for: search, askedBy: .proxy)
            Issue.record("a decision from a chain with no source for the URL")
        } catch let error as PortalAuthError {
            #expect(error.code == .noCredential)
        }
    }

    /// Stores alice's portal token (a password sign-in whose password is not kept).
    func storeAlicesToken(in manager: AuthenticationManager) async throws {
        manager.arcGISCredentialStore.register(TokenCredential.self)
        try await manager.arcGISCredentialStore.commit(
            TokenCredential(
                serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
                username: "alice", tokenInfo: token, referer: nil, tokenExpirationMinutes: 60),
            origin: .signIn)
    }

    /// An unattended renewal that renews to `renewed` (nothing by default), and says it can (`can`)
    /// or cannot tell.
    struct Renewal: UnattendedRenewal {
        let can: Bool
        var renewed: (any ArcGISCredential)? = nil
        func renewed(
            _ credential: any ArcGISCredential, services: AuthenticationServices
        ) async throws -> (any ArcGISCredential)? { renewed }
        func canRenew(_ credential: any ArcGISCredential) -> Bool { can }
    }

    /// A source that answers for every URL or for none.
    struct NamedSource: CredentialSource {
        let answering: Bool
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        var description: String { "a source that answers \(answering ? "every" : "no") URL" }
        func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool { answering }
    }

    /// Asked by a proxy, a chain's decision contacts no host outside every known credential's
    /// reach: a server nobody vouched for is not asked what it is (a program's decision would
    /// read its `rest/info`).
    @Test func aProxysDecisionContactsNoUnknownHost() async throws {
        let recording = RecordingTransport()
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: recording)
        manager.arcGISCredentialStore.register(PregeneratedTokenCredential.self)
        try await manager.arcGISCredentialStore.commit(
            PregeneratedTokenCredential(serverContext: portal, tokenInfo: token), origin: .signIn)
        let chain = CredentialSourceChain([StoredCredentialSource(manager: manager, followingChanges: false)])
        let unknown = URL(string: "https://unknown.example.com/server/rest/services/X/MapServer")!
        await #expect(throws: PortalAuthError.self) { try await chain.decision(for: unknown, askedBy: .proxy) }
        #expect(recording.hosts.withLock { $0 }.isEmpty)
        _ = try? await chain.decision(for: unknown, askedBy: .program)
        #expect(recording.hosts.withLock { $0 }.contains("unknown.example.com"))
    }

    /// A transport that records the hosts it is asked to reach, and reaches none.
    final class RecordingTransport: HTTPTransport {
        let hosts = Mutex<[String]>([])
        func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
            hosts.withLock { $0.append(request.url.host ?? "") }
            throw PortalAuthError(.connectionFailed, "no network in unit tests", remedy: .none)
        }
    }

    /// A source written outside the package, named as its author chooses.
    struct OwnSource: CredentialSource {
        let manager: AuthenticationManager
        var description: String { "a test's own source" }
        var name: String { "mine" }
        func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool { true }
    }

    /// A decision asked of a source (or a chain) names it, and the json says where the credential
    /// came from; asked of a manager directly, it names none (`null`).
    @Test func theDecisionNamesItsSourceAndTheJSONPrintsIt() async throws {
        let manager = try await manager(user: true, key: false)
        let source = OwnSource(manager: manager)
        func printed(_ decision: CredentialDecision) -> JSONValue? { TokenJSON.object(decision)["source"] }
        let fromSource = try await source.decision(for: search, askedBy: .program, includingProxy: false)
        #expect(fromSource.source?.name == "mine")
        #expect(printed(fromSource) == .string("mine"))
        let fromChain = try await CredentialSourceChain([source]).decision(for: search, askedBy: .proxy)
        #expect(printed(fromChain) == .string("mine"))
        #expect(fromChain.credential?.tokenInfo.accessToken == "user-token")
        let stored = StoredCredentialSource(manager: manager, followingChanges: false)
        #expect(printed(try await stored.decision(for: search, askedBy: .program)) == .string("stored"))
        // (A source that gives no name of its own is named by its type.)
        #expect(NamedSource(answering: true).name == "NamedSource")
        #expect(printed(try await manager.decision(for: search, includingProxy: false)) == .null)
    }
}
