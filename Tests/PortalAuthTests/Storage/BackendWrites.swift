@testable import PortalAuth

/// The backends' writes as the tests of the backends themselves call them. Only the library
/// makes a ``CredentialWriteAccess`` (its write path); these tests stand inside it.
extension CredentialStorageBackend {
    func store(_ attributes: CredentialAttributes, secret: String) throws {
        try store(attributes, secret: secret, access: CredentialWriteAccess())
    }

    func store(_ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery) throws {
        try store(attributes, secret: secret, replacing: replacing, access: CredentialWriteAccess())
    }

    @discardableResult
    func delete(_ query: CredentialQuery) throws -> Int { try delete(query, access: CredentialWriteAccess()) }
}
