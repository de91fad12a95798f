#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A kind of configuration file: its `type` value and its keys. A file without `type` is read as
/// the one kind whose keys hold all of its keys (see ``ConfigurationFile/readingKind(among:)``).
public struct ConfigurationKind: Sendable, Equatable {
    /// The `type` value (`iap`, `oauth-user`, `oauth-application`).
    public var type: String
    /// What it describes, for messages: "an identity-aware proxy (IAP) sign-in".
    public var name: String
    /// Every key a file of this kind may have.
    public var keys: Set<String>

    /// Creates a kind.
    public init(type: String, name: String, keys: Set<String>) {
        self.type = type
        self.name = name
        self.keys = keys
    }
}
