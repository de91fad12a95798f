import Foundation
import PortalAuthToken
import Testing

@testable import PortalAuth

/// Named accounts: where a new sign-in goes, and the store's switch over a memory backend (no I/O).
@Suite struct AccountTests {
    let portal = PortalTokens.portal
    let server = PortalTokens.server

    func token(_ user: String, _ value: String) -> TokenCredential { PortalTokens.token(user, value) }

    func store() -> (ArcGISCredentialStore, MemoryCredentialBackend) {
        let backend = MemoryCredentialBackend()
        let store = ArcGISCredentialStore(backend: backend)
        store.register(TokenCredential.self)
        return (store, backend)
    }

    @Test func aNewSignInIsActiveUnlessAnotherUserIs() {
        #expect(ArcGISAccountAddition.decide(username: "bob", activeUser: nil) == .active)
        #expect(ArcGISAccountAddition.decide(username: "alice", activeUser: "alice") == .active)
        #expect(ArcGISAccountAddition.decide(username: nil, activeUser: "alice") == .active)
        #expect(ArcGISAccountAddition.decide(username: "bob", activeUser: nil) == .active)
        #expect(ArcGISAccountAddition.decide(username: "bob", activeUser: "alice") == .inactive(activeUser: "alice"))
    }

    @Test func theSecondUserIsAddedBesideTheFirstWhichStaysWhereEarlierVersionsLookedForIt() async throws {
        let (store, backend) = store()
        #expect(try await store.addAccount(token("alice", "a1")) == .active)
        #expect(try await store.addAccount(token("bob", "b1")) == .inactive(activeUser: "alice"))
        #expect(try await store.addAccount(token("bob", "b2")) == .inactive(activeUser: "alice"))
        #expect(try await store.addAccount(token("alice", "a2")) == .active)
        // The active one is the one item of store=arcgis, server=<context>, as before accounts.
        let active = try backend.search(CredentialQuery(store: "arcgis", server: portal.url), withSecrets: false)
        #expect(active.map(\.attributes.username) == ["alice"])
        let parked = try backend.search(CredentialQuery(store: "arcgis-account"), withSecrets: false)
        #expect(parked.map(\.attributes.username) == ["bob"])
        #expect(try store.storedCredential(for: URL(string: portal.url)!)?.tokenInfo.accessToken == "a2")
        #expect(try await store.credential(for: portal, username: "bob")?.tokenInfo.accessToken == "b2")
        #expect(
            try await store.accounts(for: portal).map { [$0.username, "\($0.isActive)"] } == [
                ["alice", "true"], ["bob", "false"],
            ])
    }

    @Test func aSwitchSwapsTheAccountsAndTheirFederatedTokens() async throws {
        let (store, backend) = store()
        try await store.addAccount(token("alice", "a"))
        try await store.addAccount(token("bob", "b"))
        let info = TokenInfo(accessToken: "fa", expirationDate: nil, isSSLRequired: true)
        try await store.add(
            FederatedTokenCredential(
                serverContext: server, portal: portal, tokenInfo: info, username: "alice", referer: nil))
        try await store.switchAccount(portal, to: "bob")
        #expect(try await store.credential(for: portal, reload: true)?.username == "bob")
        // Alice's federated token went with her; bob's is obtained anew.
        #expect(try await store.credential(for: server, reload: true) == nil)
        let alices = store.accountStore(username: "alice")
        #expect(try await alices.credential(for: server)?.tokenInfo.accessToken == "fa")
        #expect(
            try backend.search(CredentialQuery(store: "arcgis-account", username: "bob"), withSecrets: false).isEmpty)
        await #expect(throws: PortalAuthError.self) { try await store.switchAccount(portal, to: "carol") }
        try await store.switchAccount(portal, to: "alice")
        #expect(try await store.credential(for: portal, reload: true)?.tokenInfo.accessToken == "a")
        #expect(try await store.credential(for: server, reload: true)?.tokenInfo.accessToken == "fa")
    }

    @Test func removingTheActiveAccountMakesTheNextOneActive() async throws {
        let (store, _) = store()
        try await store.addAccount(token("alice", "a"))
        try await store.addAccount(token("carol", "c"))
        try await store.addAccount(token("bob", "b"))
        let (_, next) = try await store.removeAccount(portal, username: "alice")
        #expect(next == "bob")
        #expect(try await store.accounts(for: portal).map(\.username) == ["bob", "carol"])
        _ = try await store.removeAccount(portal, username: "carol")
        #expect(try await store.accounts(for: portal).map(\.username) == ["bob"])
        #expect(try await store.removeAccount(portal, username: "bob").nowActive == nil)
        #expect(try await store.credential(for: portal, reload: true) == nil)
    }

    @Test func anAccountsOwnStoreReadsAndWritesOnlyItsItems() async throws {
        let (store, backend) = store()
        try await store.addAccount(token("alice", "a"))
        try await store.addAccount(token("bob", "b"))
        let bobs = store.accountStore(username: "bob")
        try await bobs.add(token("bob", "b2"))  // a renewal, written back where bob's account lives
        #expect(try await bobs.credential(for: portal, reload: true)?.tokenInfo.accessToken == "b2")
        #expect(try await store.credential(for: portal, reload: true)?.tokenInfo.accessToken == "a")
        #expect(try backend.search(CredentialQuery(), withSecrets: false).count == 2)
    }
}

extension AccountTests {
    @Test func aFederatedTokenOfAnotherAccountThanThePortalsIsNotUsed() {
        let info = TokenInfo(accessToken: "f", expirationDate: nil, isSSLRequired: true)
        let alices = FederatedTokenCredential(
            serverContext: server, portal: portal, tokenInfo: info, username: "alice", referer: nil)
        #expect(ArcGISResolver.isOwnFederatedToken(alices, portal: token("alice", "a")))
        #expect(!ArcGISResolver.isOwnFederatedToken(alices, portal: token("bob", "b")))
        // Nobody's once the portal's credential is gone (signed out, perhaps while it was exchanged).
        #expect(!ArcGISResolver.isOwnFederatedToken(alices, portal: nil))
    }
}

extension AccountTests {
    @Test func aServerTokenIsStoredOnlyWhileItsUserIsActiveOnThePortal() async throws {
        let (store, _) = store()
        store.register(FederatedTokenCredential.self)
        try await store.addAccount(token("alice", "a"))
        try await store.addAccount(token("bob", "b"))
        let info = TokenInfo(accessToken: "fb", expirationDate: nil, isSSLRequired: true)
        let bobs = FederatedTokenCredential(
            serverContext: server, portal: portal, tokenInfo: info, username: "bob", referer: nil)
        #expect(try await store.commit(bobs, origin: .federation) == .notStored)
        #expect(try await store.credential(for: server, reload: true) == nil)
        try await store.switchAccount(portal, to: "bob")
        #expect(try await store.commit(bobs, origin: .federation) == .stored)
        #expect(try await store.credential(for: server, reload: true)?.tokenInfo.accessToken == "fb")
    }
}

extension AccountTests {
    /// A token renewed outside a renewal's lock (a remembered password's) while another process
    /// switched accounts goes where its account is now, and the active account stays.
    @Test func aRenewedCredentialGoesWhereItsAccountLivesNow() async throws {
        let (store, _) = store()
        try await store.addAccount(token("alice", "a"))
        try await store.addAccount(token("bob", "b"))
        try await store.switchAccount(portal, to: "bob")
        try await store.commit(token("alice", "a2"), origin: .renewal)
        #expect(try await store.credential(for: portal, reload: true)?.tokenInfo.accessToken == "b")
        #expect(try await store.credential(for: portal, username: "alice")?.tokenInfo.accessToken == "a2")
        // Renewed through bob's own store after he became active: his active credential.
        let bobs = store.accountStore(username: "bob")
        try await bobs.commit(token("bob", "b2"), origin: .renewal)
        #expect(try await store.credential(for: portal, reload: true)?.tokenInfo.accessToken == "b2")
        #expect(try await store.accounts(for: portal).map(\.username) == ["bob", "alice"])
    }
}
