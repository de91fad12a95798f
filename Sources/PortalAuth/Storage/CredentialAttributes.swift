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
