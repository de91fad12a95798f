#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps credentials in memory, for library users and unit tests. Nothing outlives the process.
public final class MemoryCredentialBackend: CredentialStorageBackend {
    /// `memory`.
    public let name = "memory"
    /// This process's memory.
    public let location = "this process's memory"
    /// Never blocks.
    public let isBlocking = false
    /// Gone with the process, shared with no other.
    public let isPersistent = false
    private let items = Locked<[StoredCredentialItem]>([])
    /// How many changes were made (bumped under the items' lock).
    private let changes = Locked<UInt64>(0)

    /// Creates an empty store.
    public init() {}

    /// The number of changes made so far.
    public var changeStamp: CredentialStoreChangeStamp? { CredentialStoreChangeStamp([changes.withLock { $0 }]) }

    /// Always available.
    public func checkAvailable() throws {}

    /// The secret of the first matching item.
    public func lookup(_ query: CredentialQuery) throws -> String? {
        items.withLock { $0.first { query.matches($0.attributes) }?.secret }
    }

    /// Every matching item.
    public func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        items.withLock {
            $0.filter { query.matches($0.attributes) }.map {
                StoredCredentialItem(attributes: $0.attributes, secret: withSecrets ? $0.secret : nil)
            }
        }
    }

    /// Stores an item, replacing any with the same store, server and kind.
    public func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try store(attributes, secret: secret, replacing: CredentialQuery(replacing: attributes), access: access)
    }

    /// Stores an item and removes every other item matching `replacing`, under one lock.
    public func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        items.withLock { items in
            items.removeAll { replacing.matches($0.attributes) }
            items.append(StoredCredentialItem(attributes: attributes, secret: secret))
            changes.withLock { $0 += 1 }
        }
    }

    /// Deletes every matching item.
    @discardableResult
    public func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        items.withLock { items in
            let before = items.count
            items.removeAll { query.matches($0.attributes) }
            if items.count != before { changes.withLock { $0 += 1 } }
            return before - items.count
        }
    }
}
