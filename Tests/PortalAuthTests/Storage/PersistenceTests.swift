import Foundation
import PortalAuth
import Testing

/// A backend that keeps items in memory under another name, and says it is persistent (as a
/// program's own database-backed backend would).
final class RenamedBackend: CredentialStorageBackend {
    let inner = MemoryCredentialBackend()
    let name: String
    let isPersistent: Bool
    var location: String { "a test's memory" }
    var isBlocking: Bool { false }
    init(name: String, isPersistent: Bool) {
        self.name = name
        self.isPersistent = isPersistent
    }
    func lookup(_ query: CredentialQuery) throws -> String? { try inner.lookup(query) }
    func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try inner.search(query, withSecrets: withSecrets)
    }
    func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try inner.store(attributes, secret: secret, access: access)
    }
    func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try inner.delete(query, access: access)
    }
    func checkAvailable() throws {}
}

@Suite struct BackendPersistenceTests {
    @Test func theBackendsSayWhetherTheyArePersistent() {
        #expect(MemoryCredentialBackend().isPersistent == false)
        #expect(FileCredentialBackend(path: temporaryPath("credentials.json")).isPersistent)
        #expect(KeyringCredentialBackend().isPersistent)
    }

    @Test func crossProcessLocksFollowPersistenceNotTheBackendsName() throws {
        let transport = CurlTransport()
        let persistent = AuthenticationManager(
            backend: RenamedBackend(name: "memory", isPersistent: true), transport: transport)
        #expect(persistent.usesCrossProcessLocks)
        let transient = AuthenticationManager(
            backend: RenamedBackend(name: "database", isPersistent: false), transport: transport)
        #expect(!transient.usesCrossProcessLocks)
        #expect(!AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport).usesCrossProcessLocks)
    }
}
