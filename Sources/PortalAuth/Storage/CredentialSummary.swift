import Dispatch

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A non-secret summary of a stored credential, what a status listing shows of it.
public struct CredentialSummary: Sendable, Equatable, Codable {
    /// `arcgis` or `network`.
    public var store: String
    /// The credential kind.
    public var kind: String
    /// The server context or host.
    public var server: String
    /// The user name, when known.
    public var username: String?
    /// When the token expires, when known.
    public var expirationDate: Date?
    /// The storage backend (`keyring`, `file`, `memory`).
    public var backend: String
    /// The credential's own answer to whether and until when it can be renewed
    /// (``StoredCredential/renewal``); `nil` when the item cannot be read. Not encoded.
    public var renewal: CredentialRenewal? = nil
    /// What to do once it can no longer be renewed (``StoredCredential/remedyWhenLapsed``); `nil`:
    /// sign in again as it was signed in, or the item cannot be read. Not encoded.
    public var remedyWhenLapsed: PortalAuthError.Remedy? = nil

    private enum CodingKeys: String, CodingKey {
        case store, kind, server, username, expirationDate, backend
    }
}
