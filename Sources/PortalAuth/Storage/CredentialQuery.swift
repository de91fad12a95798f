#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
