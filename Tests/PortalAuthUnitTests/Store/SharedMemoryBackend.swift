@testable import PortalAuth

/// A memory backend that says it is persistent and shared with other processes, as the keyring and
/// the file store are: a password can be remembered in it, and the storage layer's own writes need
/// the scope's cross-process lock (no other I/O than the lock files).
struct SharedMemoryBackend: CredentialStorageBackend {
    let memory = MemoryCredentialBackend()
    var name: String { "shared" }
    var location: String { "memory" }
    var isBlocking: Bool { false }
    var isPersistent: Bool { true }
    func lookup(_ query: CredentialQuery) throws -> String? { try memory.lookup(query) }
    func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try memory.search(query, withSecrets: withSecrets)
    }
    func contains(_ query: CredentialQuery) throws -> Bool { try memory.contains(query) }
    func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try memory.store(attributes, secret: secret, access: access)
    }
    func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try memory.store(attributes, secret: secret, replacing: replacing, access: access)
    }
    func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try memory.delete(query, access: access)
    }
    func checkAvailable() throws {}
}
