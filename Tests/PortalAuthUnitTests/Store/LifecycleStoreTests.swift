import Foundation
import PortalAuthPassword
import PortalAuthPregeneratedToken
import PortalAuthToken
import Testing

@testable import PortalAuth

/// A program's unattended renewal that hands out `token` and counts its calls.
private struct CountingRenewal: UnattendedRenewal {
    let token: String
    let calls = Locked(0)

    func renewed(
        _ credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)? {
        calls.withLock { $0 += 1 }
        guard let old = credential as? TokenCredential, let username = old.username else { return nil }
        return TokenCredential(
            serverContext: old.serverContext, tokenServiceURL: old.tokenServiceURL, username: username,
            tokenInfo: TokenInfo(
                accessToken: token, expirationDate: Date(timeIntervalSinceNow: 3600), isSSLRequired: true),
            referer: nil, tokenExpirationMinutes: 60)
    }
}

/// A plugin that answers every ArcGIS challenge with `answer`.
private struct AnsweringPlugin: AuthenticationChallengeHandler {
    let answer: any ArcGISCredential
    func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        if case .arcGIS = challenge { return true }
        return false
    }
    func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        .continueWithCredential(.arcGIS(answer))
    }
}

/// The lifecycle over a memory store (no I/O): renewals through the manager's one renewal path,
/// and what a commit replaces.
@Suite struct LifecycleStoreTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    let server = try! ServerContext("https://host.example.com/server")
    var portalURL: URL { URL(string: portal.url)! }

    func token(_ user: String, _ value: String) -> TokenCredential {
        TokenCredential(
            serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
            username: user,
            tokenInfo: TokenInfo(
                accessToken: value, expirationDate: Date(timeIntervalSinceNow: 3600), isSSLRequired: true),
            referer: nil, tokenExpirationMinutes: 60)
    }

    func serverToken(_ user: String?, _ value: String) -> FederatedTokenCredential {
        FederatedTokenCredential(
            serverContext: server, portal: portal,
            tokenInfo: TokenInfo(accessToken: value, expirationDate: nil, isSSLRequired: true), username: user,
            referer: nil)
    }

    func manager() -> AuthenticationManager {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        manager.arcGISCredentialStore.register(TokenCredential.self)
        manager.arcGISCredentialStore.register(PregeneratedTokenCredential.self)
        return manager
    }

    // MARK: Renewal

    @Test func aTokenRefusedBeforeItsExpiryRenewsThroughTheProgramsUnattendedRenewal() async throws {
        let manager = manager()
        try await manager.arcGISCredentialStore.commit(token("alice", "a"), origin: .signIn)
        let renewal = CountingRenewal(token: "a2")
        manager.setUnattendedRenewal(renewal)
        let renewed = try await manager.renewCredential(for: portalURL, refused: true)
        #expect(renewed?.tokenInfo.accessToken == "a2")
        #expect(try await manager.arcGISCredentialStore.credential(for: portal)?.tokenInfo.accessToken == "a2")
        #expect(renewal.calls.withLock { $0 } == 1)
    }

    @Test func aRefusedTokenNothingRenewsIsNotUsedAgainAndStaysStored() async throws {
        let manager = manager()
        try await manager.arcGISCredentialStore.commit(token("alice", "a"), origin: .signIn)
        #expect(try await manager.renewCredential(for: portalURL, refused: true) == nil)
        #expect(try await manager.arcGISCredentialStore.credential(for: portal)?.tokenInfo.accessToken == "a")
    }

    @Test func aGoodTokenIsNotRenewed() async throws {
        let manager = manager()
        try await manager.arcGISCredentialStore.commit(token("alice", "a"), origin: .signIn)
        let renewal = CountingRenewal(token: "a2")
        manager.setUnattendedRenewal(renewal)
        #expect(try await manager.renewCredential(for: portalURL)?.tokenInfo.accessToken == "a")
        #expect(renewal.calls.withLock { $0 } == 0)
    }

    @Test func aRenewalStoredElsewhereIsUsedAsItIs() async throws {
        let manager = manager()
        try await manager.arcGISCredentialStore.commit(token("alice", "a2"), origin: .signIn)
        let renewal = CountingRenewal(token: "a3")
        manager.setUnattendedRenewal(renewal)
        // This request was refused with "a"; another task already stored "a2".
        let renewed = try await manager.arcGIS.renew(token("alice", "a"), refused: true)
        #expect(renewed?.tokenInfo.accessToken == "a2")
        #expect(renewal.calls.withLock { $0 } == 0)
    }

    @Test func aRenewalAfterASignOutIsNotStored() async throws {
        let manager = manager()
        manager.setUnattendedRenewal(CountingRenewal(token: "a2"))
        _ = try await manager.arcGIS.renew(token("alice", "a"), refused: true)
        #expect(try await manager.arcGISCredentialStore.credential(for: portal) == nil)
    }

    // MARK: Commit

    @Test func aNewPrincipalWithoutANameRemovesTheFormerUsersServerTokens() async throws {
        let store = manager().arcGISCredentialStore
        try await store.commit(token("alice", "a"), origin: .signIn)
        try await store.commit(serverToken("alice", "s"), origin: .federation)
        #expect(try await store.credential(for: server)?.tokenInfo.accessToken == "s")
        let pregenerated = PregeneratedTokenCredential(
            serverContext: portal, tokenInfo: TokenInfo(accessToken: "p", expirationDate: nil, isSSLRequired: true))
        #expect(try await store.commit(pregenerated, origin: .replacement) == .stored)
        #expect(try await store.credential(for: server) == nil)
        #expect(try await store.credential(for: portal)?.tokenInfo.accessToken == "p")
    }

    @Test func aSecondUserGoesBesideAndTheServerTokensStay() async throws {
        let store = manager().arcGISCredentialStore
        try await store.commit(token("alice", "a"), origin: .signIn)
        try await store.commit(serverToken("alice", "s"), origin: .federation)
        #expect(
            try await store.commit(token("bob", "b"), origin: .signIn) == .storedAsInactiveAccount(activeUser: "alice"))
        #expect(try await store.credential(for: server)?.tokenInfo.accessToken == "s")
        #expect(try await store.credential(for: portal)?.username == "alice")
    }

    @Test func aPluginsAnswerForAnotherUserReplacesAndItsServerTokensGo() async throws {
        let store = manager().arcGISCredentialStore
        try await store.commit(token("alice", "a"), origin: .signIn)
        try await store.commit(serverToken("alice", "s"), origin: .federation)
        #expect(try await store.commit(token("bob", "b"), origin: .replacement) == .stored)
        #expect(try await store.credential(for: server) == nil)
        #expect(try await store.commit(serverToken("alice", "s2"), origin: .federation) == .notStored)
    }

    @Test func aCredentialBeingSignedInIsStoredOnlyOnceItsRequestSucceeded() async throws {
        let store = NetworkCredentialStore(backend: MemoryCredentialBackend())
        store.register(PasswordCredential.self)
        let host = try ServerContext.host(of: URL(string: "https://web.example.com/arcgis")!)
        let password = try PasswordCredential(
            host: host, realm: nil, username: "alice", password: "pw", schemes: [.basic])
        let fresh = ProvisionalNetworkCredential(password, registering: true)
        // The handshake or the answer took it, but the request failed (a 404): not a sign-in.
        #expect(try await !fresh.commit(to: store, accepted: true, succeeded: false))
        #expect(try await store.credentials(for: host).isEmpty)
        #expect(try await fresh.commit(to: store, accepted: true, succeeded: true))
        #expect(try await store.credentials(for: host).count == 1)
    }

    @Test func aPluginsNetworkAnswerIsStoredOnceAcceptedAndOnlyOnce() async throws {
        let store = NetworkCredentialStore(backend: MemoryCredentialBackend())
        store.register(PasswordCredential.self)
        let host = try ServerContext.host(of: URL(string: "https://web.example.com/arcgis")!)
        let password = try PasswordCredential(
            host: host, realm: nil, username: "alice", password: "pw", schemes: [.basic])
        let fresh = ProvisionalNetworkCredential(password)
        #expect(try await !fresh.commit(to: store, accepted: false, succeeded: false))
        #expect(try await store.credentials(for: host).isEmpty)
        #expect(try await fresh.commit(to: store, accepted: true, succeeded: false))
        try await store.remove(host)
        #expect(try await fresh.commit(to: store, accepted: true, succeeded: true))
        #expect(try await store.credentials(for: host).isEmpty, "committed once: not stored again")
    }

    /// Flow (a)'s error: the portal's sign-in, never the server, never "not federated".
    @Test func nothingToRenewARefusedPortalTokenNamesThePortalsSignIn() {
        let error = ArcGISResolver.signInExpired(token("alice", "a"))
        #expect(error.code == .credentialExpired)
        #expect(error.message.contains("\(portal) expired or was revoked"))
        #expect(!error.message.contains("federated") && !error.message.contains(server.url))
        #expect(error.remedy == .signIn(.token(portal, username: "alice")))
    }

    /// A standalone server's own sign-in names the server itself (it has no portal).
    @Test func nothingToRenewAStandaloneServersTokenNamesItsOwnSignIn() throws {
        let standalone = try ServerContext("https://gis.example.com/arcgis")
        let own = TokenCredential(
            serverContext: standalone, tokenServiceURL: URL(string: standalone.url + "/tokens/generateToken")!,
            username: "carol", tokenInfo: TokenInfo(accessToken: "c", expirationDate: nil, isSSLRequired: true),
            referer: nil, tokenExpirationMinutes: 60)
        #expect(ArcGISResolver.signInExpired(own).remedy == .signIn(.token(standalone, username: "carol")))
    }

    @Test func principalsWithoutANameAreNeverTheSame() {
        let app = CredentialCommit.Principal(username: nil, kind: "oauth-application")
        #expect(!app.isSame(as: app))
        #expect(
            CredentialCommit.Principal(username: "a", kind: "token").isSame(
                as: .init(username: "a", kind: "oauth-user")))
    }

    @Test func concurrentRefusalsRenewOnce() async throws {
        let manager = manager()
        try await manager.arcGISCredentialStore.commit(token("alice", "a"), origin: .signIn)
        let renewal = CountingRenewal(token: "a2")
        manager.setUnattendedRenewal(renewal)
        let refused = token("alice", "a")
        let results = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 {
                group.addTask { try await manager.arcGIS.renew(refused, refused: true)?.tokenInfo.accessToken }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == "a2" })
        #expect(renewal.calls.withLock { $0 } == 1)
    }

    /// A manager working on bob's inactive account renews him where his account lives: alice stays active.
    @Test func anInactiveAccountRenewsWhereItLives() async throws {
        let backend = MemoryCredentialBackend()
        let base = ArcGISCredentialStore(backend: backend)
        base.register(TokenCredential.self)
        try await base.commit(token("alice", "a"), origin: .signIn)
        try await base.commit(token("bob", "b"), origin: .signIn)
        let bobs = AuthenticationManager(
            backend: AccountCredentialBackend(base: backend, username: "bob"), transport: NoNetworkTransport())
        bobs.arcGISCredentialStore.register(TokenCredential.self)
        bobs.setUnattendedRenewal(CountingRenewal(token: "b2"))
        #expect(try await bobs.renewCredential(for: portalURL, refused: true)?.tokenInfo.accessToken == "b2")
        #expect(try await base.credential(for: portal, reload: true)?.tokenInfo.accessToken == "a")
        #expect(try await base.credential(for: portal, username: "bob")?.tokenInfo.accessToken == "b2")
    }

    /// A plugin's answer goes through the registry's commit: another user's answer replaces the
    /// refused credential, and the former user's server tokens go with it.
    @Test func aPluginsAnswerIsCommittedByTheRegistry() async throws {
        let manager = manager()
        manager.register(AnsweringPlugin(answer: token("bob", "b")))
        let store = manager.arcGISCredentialStore
        try await store.commit(token("alice", "a"), origin: .signIn)
        try await store.commit(serverToken("alice", "s"), origin: .federation)
        let answered = try await manager.arcGIS.resolveArcGISChallenge(
            url: URL(string: portal.url + "/sharing/rest/portals/self")!,
            error: ArcGISError(code: 498, message: "Invalid token."), sent: token("alice", "a"))
        #expect(answered?.username == "bob")
        #expect(try await store.credential(for: portal)?.username == "bob")
        #expect(try await store.credential(for: server) == nil)
    }
}
