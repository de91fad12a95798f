import Foundation
import PortalAuth
import PortalAuthPregeneratedToken
import PortalAuthToken
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
        manager.arcGISCredentialStore.register(TokenCredential.self)
        try await manager.arcGISCredentialStore.commit(
            TokenCredential(
                serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
                username: "alice", tokenInfo: token, referer: nil, tokenExpirationMinutes: 60),
            origin: .signIn)
        let stored = try await manager.decision(for: search, includingProxy: false)
        #expect(stored.renewal == .needsUnattendedSignIn)
        #expect(!stored.signsInUnattended && stored.renewableUntil == token.expirationDate)
        manager.setUnattendedRenewal(NoRenewal())
        let kept = try await manager.decision(for: search, includingProxy: false)
        #expect(kept.signsInUnattended && kept.renewableUntil == nil)
    }

    /// A chain's decision is its answering source's manager's, and names that source.
    @Test func aChainsDecisionNamesTheSourceItCameFrom() async throws {
        let stored = StoredCredentialSource(manager: try await manager(user: true, key: false), followingChanges: false)
        let chain = CredentialSourceChain([NamedSource(answering: false), stored])
        let decision = try await chain.decision(for: search, askedBy: .proxy, includingProxy: false)
        #expect(decision.credential?.tokenInfo.accessToken == "user-token")
        #expect(decision.source?.description == stored.description)
        do {
            _ = try await CredentialSourceChain([NamedSource(answering: false)]).decision(
                for: search, askedBy: .proxy, includingProxy: false)
            Issue.record("a decision from a chain with no source for the URL")
        } catch let error as PortalAuthError {
            #expect(error.code == .noCredential)
        }
    }

    /// An unattended renewal that never has a fresh credential.
    struct NoRenewal: UnattendedRenewal {
        func renewed(
            _ credential: any ArcGISCredential, services: AuthenticationServices
        ) async throws -> (any ArcGISCredential)? { nil }
    }

    /// A source that answers for every URL or for none.
    struct NamedSource: CredentialSource {
        let answering: Bool
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        var description: String { "a source that answers \(answering ? "every" : "no") URL" }
        func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool { answering }
    }
}
