#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A credential that can be kept in a credential store: it has a kind, a server and a
/// JSON form (the secret kept in the store).
public protocol StorableCredential: Sendable, Codable {
    /// The stable kind name stored in the `kind` attribute, for example `token`.
    static var kind: String { get }
    /// The user name, when known (stored as a non-secret attribute).
    var username: String? { get }
}
