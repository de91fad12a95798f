/// What the core decides for one URL, for a program that hands a credential on (a command that
/// prints a token, a local server that answers for one, a child process's environment): the
/// ArcGIS credential and exactly where it may go, and the identity-aware proxy's credential for
/// the URL's host. ``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)``
/// makes it; a surface obeys it and never decides on its own.
public struct CredentialDecision: Sendable {
    /// The ArcGIS credential (the user's, a federated server's token from its portal, or an API
    /// key) with the URL prefixes it may go to; nil when only the proxy's credential applies.
    public let scoped: ScopedCredential?
    /// The identity-aware proxy's credential for the URL's host, when it was asked for and one
    /// is stored.
    public let proxy: (any IAPAuthorizationCredential)?

    /// The decision: at least one of the two is present (only the manager decides).
    package init(scoped: ScopedCredential?, proxy: (any IAPAuthorizationCredential)?) {
        precondition(scoped != nil || proxy != nil, "a decision gives a credential")
        self.scoped = scoped
        self.proxy = proxy
    }

    /// The ArcGIS credential (``scoped``'s).
    public var credential: (any ArcGISCredential)? { scoped?.credential }
}
