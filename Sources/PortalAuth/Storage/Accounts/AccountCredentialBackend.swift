#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One user's inactive ArcGIS credentials as a backend of their own: the items of the `arcgis`
/// store are read and written as `arcgis-account` items with the user's `username`; every other
/// item passes through. A manager over it uses that account for everything ArcGIS, renewals and
/// federated server tokens included, and writes them back where the account lives.
public struct AccountCredentialBackend: CredentialStorageBackend {
    let base: any CredentialStorageBackend
    let username: String

    /// `base`'s items, with `username`'s inactive ArcGIS credentials as its ArcGIS items.
    public init(base: any CredentialStorageBackend, username: String) {
        self.base = base
        self.username = username
    }

    /// `base`'s name: the account's items live in the same store.
    public var name: String { base.name }
    /// `base`'s location.
    public var location: String { base.location }
    /// Whether `base` blocks its caller (the keyring's D-Bus calls do).
    public var isBlocking: Bool { base.isBlocking }
    /// Whether `base` outlives the process.
    public var isPersistent: Bool { base.isPersistent }
    /// `base`'s: its items are the account's.
    public var changeStamp: CredentialStoreChangeStamp? { base.changeStamp }

    private func mapped(_ query: CredentialQuery) -> CredentialQuery {
        guard query.store == ArcGISCredentialStore.storeName else { return query }
        var query = query
        query.store = ArcGISCredentialStore.accountStoreName
        query.username = username
        return query
    }

    private func mapped(_ attributes: CredentialAttributes) -> CredentialAttributes {
        let place = mapped(CredentialQuery(store: attributes.store))
        return CredentialAttributes(
            store: place.store ?? attributes.store, server: attributes.server, kind: attributes.kind,
            username: place.username ?? attributes.username)
    }

    /// The secret `base` holds for `query`, read among the account's items.
    public func lookup(_ query: CredentialQuery) throws -> String? { try base.lookup(mapped(query)) }

    /// `base`'s items for `query`, the account's ArcGIS items shown as ArcGIS items.
    public func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try base.search(mapped(query), withSecrets: withSecrets).map { item in
            var item = item
            if item.attributes.store == ArcGISCredentialStore.accountStoreName {
                item.attributes.store = ArcGISCredentialStore.storeName
            }
            return item
        }
    }

    /// Whether `base` holds an item for `query`, among the account's items.
    public func contains(_ query: CredentialQuery) throws -> Bool { try base.contains(mapped(query)) }

    /// Stores the item in `base` as the account's, replacing the account's item of the same place.
    public func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try base.store(
            mapped(attributes), secret: secret, replacing: mapped(CredentialQuery(replacing: attributes)),
            access: access)
    }

    /// Stores the item in `base` as the account's, replacing what `replacing` finds among them.
    public func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try base.store(mapped(attributes), secret: secret, replacing: mapped(replacing), access: access)
    }

    /// Deletes the account's items `query` finds in `base`; how many.
    public func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try base.delete(mapped(query), access: access)
    }

    /// Whether `base` can be used now (throws as it does).
    public func checkAvailable() throws { try base.checkAvailable() }
}
