// A password remembered for unattended renewal answers a token challenge before the fallback is asked.
public import PortalAuth

/// Answers a token challenge with the remembered password of its server context when there is
/// one (a token the server refused before it expired), and asks `fallback` otherwise.
///
/// A password is remembered per server context and user: the challenge's previous credential names
/// the user, and a challenge with none (a first sign-in) goes to `fallback`.
public struct RememberedPasswordProvider: UsernamePasswordProvider {
    /// Where the passwords are kept (``RememberedPasswords``).
    public let backend: any CredentialStorageBackend
    /// Who answers when no password is remembered (a terminal prompt, say).
    public let fallback: any UsernamePasswordProvider

    /// A provider reading `backend`, asking `fallback` otherwise.
    public init(backend: any CredentialStorageBackend, fallback: any UsernamePasswordProvider) {
        self.backend = backend
        self.fallback = fallback
    }

    /// The remembered password of the challenge's server context and previous user, or `fallback`'s answer.
    public func usernameAndPassword(
        for challenge: ArcGISAuthenticationChallenge
    ) async throws -> (username: String, password: String)? {
        if backend.isPersistent, let username = challenge.previousCredential?.username,
            let password = try RememberedPasswords(backend: backend).password(
                for: challenge.serverContext, username: username)
        {
            return (username, password)
        }
        return try await fallback.usernameAndPassword(for: challenge)
    }
}
