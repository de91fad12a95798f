import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArcGISResolver {
    // MARK: - Credentials for use

    /// The credential to attach to a request for `url`: the one of its server context, renewed
    /// when it is close to expiry. `nil` when there is none or it expired and cannot be renewed.
    func credentialForUse(_ url: URL) async throws -> (any ArcGISCredential)? {
        guard let credential = try await arcGISCredentialStore.credential(for: url) else { return nil }
        guard try await isOwnFederatedToken(credential) else { return nil }
        if credential.tokenInfo.isSSLRequired, url.scheme?.lowercased() != "https" {
            throw AuthenticationManager.plainHTTPRefusal(of: credential, for: url)
        }
        guard credential.tokenInfo.expires(within: credential.renewalLeeway) else { return credential }
        return try await renew(credential)
    }

    /// Whether a federated server token belongs to the principal its portal's credential is
    /// (``CredentialCommit/Principal/isSame(as:)``): one obtained for another account while the
    /// accounts were switched, or before an app or a pregenerated token took the portal over, is
    /// not used (and is obtained again for this one). With no portal credential (signed out), none is.
    static func isOwnFederatedToken(_ token: any ArcGISCredential, portal: (any ArcGISCredential)?) -> Bool {
        guard let portal else { return false }
        // A named user on either side is decided by the names alone (no digest computed).
        if token.username != nil || portal.username != nil {
            return token.username != nil && token.username == portal.username
        }
        return ArcGISCredentialStore.principal(of: token).isSame(as: ArcGISCredentialStore.principal(of: portal))
    }

    /// Whether `credential` is no federated server token, or one of the account active on its
    /// portal in this store (see ``isOwnFederatedToken(_:portal:)``).
    func isOwnFederatedToken(_ credential: any ArcGISCredential) async throws -> Bool {
        guard let portal = credential.derivedFrom else { return true }
        return Self.isOwnFederatedToken(credential, portal: try await arcGISCredentialStore.credential(for: portal))
    }

    /// Renews a credential close to expiry, once across tasks and processes (``RenewOnce``).
    /// Returns the renewed credential, the old one while it has not yet expired, or `nil` once it
    /// has. A federated server token that cannot renew itself is obtained again from its portal.
    ///
    /// - Parameter refused: the server refused the credential's token: renew it even though it
    ///   has not expired (unless another task or process already replaced it).
    /// - Parameter lasting: renew it to last (``Renewal/lasting``).
    func renew(
        _ credential: any ArcGISCredential, refused: Bool = false, lasting: Bool = false
    ) async throws -> (any ArcGISCredential)? {
        var fallback: (@Sendable () async throws -> (any StoredCredential)?)?
        if let portal = credential.derivedFrom {
            let server = credential.serverContext
            fallback = { [self] () async throws -> (any StoredCredential)? in
                guard let portalCredential = try await credentialForUse(URL(string: portal.url)!) else { return nil }
                return try await federate(server: server, portal: portalCredential, tokenServiceURL: nil)
            }
        }
        return try await renewals.run(
            Renewal(
                credential: credential, store: arcGISCredentialStore, refused: refused, lasting: lasting,
                fallback: fallback))
            as? any ArcGISCredential
    }
}
