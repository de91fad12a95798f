#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where credential stores keep their items: the keyring, a file, or memory.
///
/// Calls are synchronous and may block (the keyring makes D-Bus round trips); the stores run
/// them off the Swift concurrency pool when ``isBlocking`` is true.
///
/// Anyone may read a backend; only the library writes to one. Its writes take a
/// ``CredentialWriteAccess``, which only the library makes: they are called from the one write
/// path (``CredentialStore/commit(_:origin:)``, ``CredentialStore/forget(_:kind:)`` and the
/// account and kept-item operations built on them), under the lock of the item's scope, and from
/// nowhere else. A backend of a program's own implements them and never calls them itself.
public protocol CredentialStorageBackend: Sendable {
    /// A short name: `keyring`, `file` or `memory`.
    var name: String { get }
    /// Where the items live, for `status` and `doctor` (for example the file path).
    var location: String { get }
    /// Whether calls block on I/O.
    var isBlocking: Bool { get }
    /// Whether the items outlive the process and are shared with other processes (the keyring,
    /// a file), so that renewals take a lock shared with other processes; `false` for memory.
    var isPersistent: Bool { get }

    /// The secret of the first item matching the query, or `nil`.
    func lookup(_ query: CredentialQuery) throws -> String?
    /// Every item matching the query, with secrets when `withSecrets` is true.
    func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem]
    /// Whether any item matches the query; nothing is decrypted or copied (the keyring answers
    /// without a session, so without a key exchange).
    func contains(_ query: CredentialQuery) throws -> Bool
    /// Stores an item, replacing every item with the same store, server and kind.
    func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws
    /// Stores an item and removes every other item matching `replacing` (a query the item
    /// matches), so that readers, in this process or another, never find no item or two.
    func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws
    /// Deletes every item matching the query and returns how many there were.
    @discardableResult
    func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int
    /// Checks that the backend can be used right now; throws the error a user should see if not.
    func checkAvailable() throws
    /// A stamp of the items as they are now, taken without reading them (no D-Bus call, no secret):
    /// equal stamps of this backend say that no item changed between them, in this process or
    /// another; `nil` when the backend cannot tell, and the reader must read again. Taken before a
    /// read, so that a change during the read makes the next stamp differ. The default is `nil`.
    var changeStamp: CredentialStoreChangeStamp? { get }
}

extension CredentialStorageBackend {
    /// Cannot tell: every reader reads again.
    public var changeStamp: CredentialStoreChangeStamp? { nil }

    /// Searches without secrets.
    public func contains(_ query: CredentialQuery) throws -> Bool {
        try !search(query, withSecrets: false).isEmpty
    }

    /// For backends without an atomic replace: removes the items of other kinds in `replacing`,
    /// then stores the item (which replaces its own kind). A reader may see the change half done.
    public func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        for item in try search(replacing, withSecrets: false) where item.attributes.kind != attributes.kind {
            try delete(
                CredentialQuery(
                    store: item.attributes.store, server: item.attributes.server, kind: item.attributes.kind),
                access: access)
        }
        try store(attributes, secret: secret, access: access)
    }
}

/// The library's leave to write to a ``CredentialStorageBackend``: every write takes one, and
/// only the library makes one, so a program (the `portal-auth` executable included) writes a
/// credential only through the library's write path (``CredentialStore/commit(_:origin:)``,
/// ``CredentialStore/forget(_:kind:)``), under the lock of the credential's scope.
public struct CredentialWriteAccess: Sendable {
    /// Made by the write path only.
    init() {}
}
