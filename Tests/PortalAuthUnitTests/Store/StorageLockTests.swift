import Foundation
import PortalAuthToken
import Testing

@testable import PortalAuth

/// The storage layer's own writes (`add`, `remove`) run only under the lock of what they write,
/// the one commits, renewals and account switches take: outside it they throw and write nothing,
/// so a write that bypassed the write path would fail at once rather than race a renewal.
@Suite struct StorageLockTests {
    let portal = PortalTokens.portal
    let server = PortalTokens.server

    func token(_ user: String, _ value: String) -> TokenCredential { PortalTokens.token(user, value) }

    func store() -> (ArcGISCredentialStore, SharedMemoryBackend) {
        let backend = SharedMemoryBackend()
        let store = ArcGISCredentialStore(backend: backend)
        store.register(TokenCredential.self)
        store.register(FederatedTokenCredential.self)
        return (store, backend)
    }

    @Test func aWriteOutsideTheLockThrowsAndWritesNothing() async throws {
        let (store, backend) = store()
        let error = await #expect(throws: PortalAuthError.self) { try await store.add(token("alice", "a")) }
        #expect(error?.code == .internalError)
        #expect(try backend.search(CredentialQuery(), withSecrets: false).isEmpty)
        try await store.commit(token("alice", "a"), origin: .signIn)
        await #expect(throws: PortalAuthError.self) { try await store.remove(.serverContext(portal)) }
        await #expect(throws: PortalAuthError.self) { try await store.remove(portal) }
        #expect(try backend.search(CredentialQuery(), withSecrets: false).count == 1)
        // Another scope's lock is not this one's.
        await #expect(throws: PortalAuthError.self) {
            try await store.withScopeLock(.serverContext(server)) { try await store.add(token("alice", "b")) }
        }
    }

    @Test func theWritePathWritesUnderTheLock() async throws {
        let (store, backend) = store()
        try await store.commit(token("alice", "a"), origin: .signIn)
        try await store.commit(token("bob", "b"), origin: .signIn)
        let info = TokenInfo(accessToken: "fa", expirationDate: nil, isSSLRequired: true)
        // A federated server token is written under its portal's lock.
        try await store.commit(
            FederatedTokenCredential(
                serverContext: server, portal: portal, tokenInfo: info, username: "alice", referer: nil),
            origin: .federation)
        try await store.switchAccount(portal, to: "bob")
        #expect(try await store.credential(for: portal, reload: true)?.username == "bob")
        #expect(try await store.removeAccount(portal, username: "alice").removed == 2)
        #expect(try await store.forget(.serverContext(portal)) == 1)
        #expect(try backend.search(CredentialQuery(), withSecrets: false).isEmpty)
    }
}
