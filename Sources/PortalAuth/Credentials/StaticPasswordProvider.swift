/// A provider with fixed credentials, for programs that already hold them, whatever the challenge.
public struct StaticPasswordProvider<Challenge: Sendable>: PasswordProvider {
    let username: String
    let password: String

    /// Creates the provider.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Returns the fixed credentials.
    public func usernameAndPassword(for challenge: Challenge) async throws -> (username: String, password: String)? {
        (username, password)
    }
}
