import Foundation
import PortalAuthToken
import Testing

@testable import PortalAuth

/// A memory backend that says it is shared with other processes, as the keyring and the file
/// store are: writes to it need the scope's cross-process lock (no other I/O than the lock files).
struct SharedMemory: CredentialStorageBackend {
    let memory = MemoryCredentialBackend()
    var name: String { "shared" }
    var location: String { "memory" }
    var isBlocking: Bool { false }
    var isPersistent: Bool { true }
    func lookup(_ query: CredentialQuery) throws -> String? { try memory.lookup(query) }
    func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try memory.search(query, withSecrets: withSecrets)
    }
    func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try memory.store(attributes, secret: secret, access: access)
    }
    func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try memory.delete(query, access: access)
    }
    func checkAvailable() throws {}
}

/// The storage layer's own writes (`add`, `remove`) run only under the lock of what they write,
/// the one commits, renewals and account switches take: outside it they throw and write nothing,
/// so a write that bypassed the write path would fail at once rather than race a renewal.
@Suite struct StorageLockTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    let server = try! ServerContext("https://host.example.com/server")

    func token(_ user: String, _ value: String) -> TokenCredential {
        TokenCredential(
            serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
            username: user, tokenInfo: TokenInfo(accessToken: value, expirationDate: nil, isSSLRequired: true),
            referer: nil, tokenExpirationMinutes: 60)
    }

    func store() -> (ArcGISCredentialStore, SharedMemory) {
        let backend = SharedMemory()
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
