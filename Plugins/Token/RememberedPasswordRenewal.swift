public import Logging
public import PortalAuth

/// Renews a token whose password is not in memory with the password remembered for its server
/// context and user (``RememberedPasswords``: the CLI's `login --remember-password`), unattended, in the manager's renewal path
/// (under its lock): before the token expires and after a server refused it.
///
/// Register it with ``AuthenticationManager/setUnattendedRenewal(_:)``; it renews nothing from a
/// store that is not persistent (memory remembers no password), a token that holds its password,
/// or another kind of credential.
public struct RememberedPasswordRenewal: UnattendedRenewal {
    /// Where the passwords are kept (``RememberedPasswords``).
    public let backend: any CredentialStorageBackend
    /// Where a renewal says it used the remembered password.
    public let logger: Logger

    /// A renewal with the passwords kept in `backend`.
    public init(backend: any CredentialStorageBackend, logger: Logger) {
        self.backend = backend
        self.logger = logger
    }

    /// A new token for `credential`, signed in with the password remembered for its server context
    /// and user; nil when none is remembered or `credential` is not a token without its password.
    public func renewed(
        _ credential: any ArcGISCredential, services: AuthenticationServices
    ) async throws -> (any ArcGISCredential)? {
        guard backend.isPersistent, let token = credential as? TokenCredential, !token.hasPassword,
            let user = token.username,
            let password = try RememberedPasswords(backend: backend).password(for: token.serverContext, username: user)
        else { return nil }
        logger.debug("renewing with the remembered password", metadata: ["server": "\(token.serverContext)"])
        return try await TokenCredential.credential(
            for: token.serverContext, tokenServiceURL: token.tokenServiceURL, username: user, password: password,
            referer: token.referer, tokenExpirationMinutes: token.tokenExpirationMinutes,
            services: services)
    }

    /// Whether a password is remembered for `credential`'s server context and user (a token without
    /// its password, in a persistent store: ``RememberedPasswords/isKept(for:username:)``); the
    /// password itself is not read. A store that cannot be read says no (a credential is never said
    /// to last longer than it may).
    public func canRenew(_ credential: any ArcGISCredential) -> Bool {
        guard backend.isPersistent, let token = credential as? TokenCredential, !token.hasPassword,
            let user = token.username
        else { return false }
        return (try? RememberedPasswords(backend: backend).isKept(for: token.serverContext, username: user)) ?? false
    }
}
