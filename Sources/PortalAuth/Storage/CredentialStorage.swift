#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The attributes every stored credential item carries. None of them is secret.
///
/// In the keyring they are the item's Secret Service attributes (plus `application=portal-auth`),
/// so `secret-tool search --all application portal-auth` lists every item.
public struct CredentialAttributes: Hashable, Sendable, Codable {
    /// Which store the item belongs to: `arcgis` or `network`.
    public var store: String
    /// The server context URL (ArcGIS) or protection space (network) the credential belongs to.
    public var server: String
    /// The credential kind, for example `token` or `pregenerated-token`.
    public var kind: String
    /// The user name, when known.
    public var username: String?

    /// Creates attributes.
    public init(store: String, server: String, kind: String, username: String? = nil) {
        self.store = store
        self.server = server
        self.kind = kind
        self.username = username
    }

    /// The item's label: `portal-auth: alice @ https://host/portal`.
    public var label: String {
        if let username, !username.isEmpty { return "portal-auth: \(username) @ \(server)" }
        return "portal-auth: \(kind) @ \(server)"
    }
}

/// Which items a lookup, search or delete applies to: a `nil` field matches anything.
public struct CredentialQuery: Hashable, Sendable {
    /// The store (`arcgis` or `network`).
    public var store: String?
    /// The server attribute.
    public var server: String?
    /// The kind attribute.
    public var kind: String?
    /// The username attribute (items without one never match a query that names one).
    public var username: String?

    /// Creates a query.
    public init(store: String? = nil, server: String? = nil, kind: String? = nil, username: String? = nil) {
        self.store = store
        self.server = server
        self.kind = kind
        self.username = username
    }

    /// The items a store of `attributes` replaces: the same store, server and kind.
    public init(replacing attributes: CredentialAttributes) {
        self.init(store: attributes.store, server: attributes.server, kind: attributes.kind)
    }

    /// Every portal-auth item.
    public static let all = CredentialQuery()

    /// Whether these attributes match the query.
    public func matches(_ attributes: CredentialAttributes) -> Bool {
        (store == nil || store == attributes.store)
            && (server == nil || server == attributes.server)
            && (kind == nil || kind == attributes.kind)
            && (username == nil || username == attributes.username)
    }
}

/// One stored item: its attributes and, when loaded, its secret (the serialized credential).
public struct StoredCredentialItem: Sendable, Equatable {
    /// The non-secret attributes.
    public var attributes: CredentialAttributes
    /// The serialized credential, or `nil` when only attributes were listed.
    public var secret: String?

    /// Creates an item.
    public init(attributes: CredentialAttributes, secret: String?) {
        self.attributes = attributes
        self.secret = secret
    }
}

/// Where credential stores keep their items: the keyring, a file, or memory.
///
/// Calls are synchronous and may block (the keyring makes D-Bus round trips); the stores run
/// them off the Swift concurrency pool when ``isBlocking`` is true.
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
    func store(_ attributes: CredentialAttributes, secret: String) throws
    /// Stores an item and removes every other item matching `replacing` (a query the item
    /// matches), so that readers, in this process or another, never find no item or two.
    func store(_ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery) throws
    /// Deletes every item matching the query and returns how many there were.
    @discardableResult
    func delete(_ query: CredentialQuery) throws -> Int
    /// Checks that the backend can be used right now; throws the error a user should see if not.
    func checkAvailable() throws
}

/// A backend that remembers where it last found an item (the keyring's item index): a lookup
/// reads there first and keeps what it read only when the caller says it is the query's item.
/// An implementation detail of the keyring backend, used by the stores' lookups.
package protocol RememberingCredentialLookup: CredentialStorageBackend {
    /// The secret of the first item matching the query, or `nil`, as ``CredentialStorageBackend/lookup(_:)``
    /// finds it; read first where the item was last found and kept only when `isItsItem` takes it.
    func lookup(_ query: CredentialQuery, verifying isItsItem: (String) -> Bool) throws -> String?
}

extension CredentialStorageBackend {
    /// Searches without secrets.
    public func contains(_ query: CredentialQuery) throws -> Bool {
        try !search(query, withSecrets: false).isEmpty
    }

    /// For backends without an atomic replace: removes the items of other kinds in `replacing`,
    /// then stores the item (which replaces its own kind). A reader may see the change half done.
    public func store(_ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery) throws {
        for item in try search(replacing, withSecrets: false) where item.attributes.kind != attributes.kind {
            try delete(
                CredentialQuery(
                    store: item.attributes.store, server: item.attributes.server, kind: item.attributes.kind))
        }
        try store(attributes, secret: secret)
    }
}
