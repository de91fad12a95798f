#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A federated ArcGIS Server token, obtained from the owning portal's `generateToken` with the
/// portal token and `serverUrl`; the manager makes and caches these itself.
public struct FederatedTokenCredential: ArcGISCredential, Equatable {
    /// `federated-token`.
    public static let kind = "federated-token"
    /// The ArcGIS Server root.
    public let serverContext: ServerContext
    /// The portal it was derived from.
    public let portal: ServerContext
    /// The server token.
    public let tokenInfo: TokenInfo
    /// The portal user.
    public let username: String?
    /// The referer the portal token was bound to, if any.
    public let referer: String?
    /// Who it was issued for when the portal credential names no user: the portal principal's
    /// kind with its client ID, or with the SHA-256 digest of its token (never the token).
    /// `nil` for a named user (``username``) and in items stored by earlier versions.
    public let portalPrincipal: String?
    /// The portal.
    public var derivedFrom: ServerContext? { portal }

    /// Creates a federated token credential.
    public init(
        serverContext: ServerContext, portal: ServerContext, tokenInfo: TokenInfo, username: String?, referer: String?,
        portalPrincipal: String? = nil
    ) {
        self.serverContext = serverContext
        self.portal = portal
        self.tokenInfo = tokenInfo
        self.username = username
        self.referer = referer
        self.portalPrincipal = portalPrincipal
    }

    /// Obtained again from its portal, as long as the portal's credential lasts.
    public var renewal: CredentialRenewal { .followsPortal }
}
