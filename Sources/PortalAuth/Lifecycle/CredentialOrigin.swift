/// Where a credential about to be stored came from: what ``CredentialStore/commit(_:origin:)``
/// decides by.
public enum CredentialOrigin: Sendable, Equatable {
    /// A sign-in the server just accepted: a password, an OAuth flow, an app's secret, a
    /// pregenerated token. A second user of a server context is kept beside the active one.
    case signIn
    /// A credential that takes the active place of its server context whoever held it: a plugin's
    /// answer to a challenge (what the request goes on with), or a credential made elsewhere (a
    /// pregenerated token). A different principal's federated server tokens go first.
    case replacement
    /// A renewal of a stored credential (its refresh token, a remembered password, the
    /// environment's credentials): kept where its account lives now, never brought back after a
    /// sign-out.
    case renewal
    /// A federated server token the portal issued for its active account (or the portal's own
    /// token, for a server the portal lists): kept only while that account is the portal's.
    case federation
}
