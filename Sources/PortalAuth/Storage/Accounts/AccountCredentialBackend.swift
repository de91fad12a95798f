#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One user's inactive ArcGIS credentials as a backend of their own: the items of the `arcgis`
/// store are read and written as `arcgis-account` items with the user's `username`; every other
/// item passes through. A manager over it uses that account for everything ArcGIS, renewals and
/// federated server tokens included, and writes them back where the account lives.
package struct AccountCredentialBackend: CredentialStorageBackend {
    let base: any CredentialStorageBackend
    let username: String

    /// `base`'s items, with `username`'s inactive ArcGIS credentials as its ArcGIS items.
    package init(base: any CredentialStorageBackend, username: String) {
        self.base = base
        self.username = username
    }

    package var name: String { base.name }
    package var location: String { base.location }
    package var isBlocking: Bool { base.isBlocking }
    package var isPersistent: Bool { base.isPersistent }
    /// `base`'s: its items are the account's.
    package var changeStamp: CredentialStoreChangeStamp? { base.changeStamp }

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

    package func lookup(_ query: CredentialQuery) throws -> String? { try base.lookup(mapped(query)) }

    package func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try base.search(mapped(query), withSecrets: withSecrets).map { item in
            var item = item
            if item.attributes.store == ArcGISCredentialStore.accountStoreName {
                item.attributes.store = ArcGISCredentialStore.storeName
            }
            return item
        }
    }

    package func contains(_ query: CredentialQuery) throws -> Bool { try base.contains(mapped(query)) }

    package func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try base.store(
            mapped(attributes), secret: secret, replacing: mapped(CredentialQuery(replacing: attributes)),
            access: access)
    }

    package func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try base.store(mapped(attributes), secret: secret, replacing: mapped(replacing), access: access)
    }

    package func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try base.delete(mapped(query), access: access)
    }

    package func checkAvailable() throws { try base.checkAvailable() }
}
