/// What a program that forwards requests for others (a local proxy such as `portal-auth serve`)
/// may do for one URL (``AuthenticationManager/forwardingPermission(for:)``): decided only where a
/// credential is known, so that no host outside every credential's reach is contacted.
public enum ForwardingPermission: Sendable {
    /// A credential covers the URL: the decision, which `serve` sends the request on, so that it is not
    /// decided again.
    case decided(CredentialDecision)
    /// No ArcGIS or proxy credential covers the URL, but its host has a stored network credential
    /// (an HTTP password, a client certificate): the request is sent as ``AuthenticationManager/send(_:)``
    /// sends it.
    case hostCredential
    /// Nothing known covers the URL: the request is not to be forwarded.
    case refused
}
