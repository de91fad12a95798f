#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A backend that remembers where it last found an item (the keyring's item index): a lookup
/// reads there first and keeps what it read only when the caller says it is the query's item.
/// An implementation detail of the keyring backend, used by the stores' lookups.
package protocol RememberingCredentialLookup: CredentialStorageBackend {
    /// The secret of the first item matching the query, or `nil`, as ``CredentialStorageBackend/lookup(_:)``
    /// finds it; read first where the item was last found and kept only when `isItsItem` takes it.
    func lookup(_ query: CredentialQuery, verifying isItsItem: (String) -> Bool) throws -> String?
}
