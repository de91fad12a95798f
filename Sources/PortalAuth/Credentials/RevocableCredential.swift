#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A credential whose tokens a portal can revoke (OAuth user credentials).
public protocol RevocableCredential: ArcGISCredential {
    /// Revokes the credential's tokens at its portal.
    func revoke(using services: AuthenticationServices) async throws
}
