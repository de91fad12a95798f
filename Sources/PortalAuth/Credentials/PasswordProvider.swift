/// Supplies a username and password for a challenge: the one shape behind the token plugin's
/// ``UsernamePasswordProvider`` (ArcGIS challenges) and the HTTP authentication plugin's
/// `NetworkPasswordProvider` (HTTP 401), which refine it with their challenge type.
///
/// A program or a CLI prompts on a terminal, reads standard input, or holds the credentials.
public protocol PasswordProvider<Challenge>: Sendable {
    /// The challenge the provider answers.
    associatedtype Challenge: Sendable

    /// The username and password for `challenge`, or `nil` to cancel.
    ///
    /// Throw a ``PortalAuthError`` that says what to do when no password can be had (for
    /// example when standard input is not a terminal).
    func usernameAndPassword(for challenge: Challenge) async throws -> (username: String, password: String)?
}
