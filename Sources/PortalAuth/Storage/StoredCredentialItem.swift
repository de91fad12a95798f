#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
