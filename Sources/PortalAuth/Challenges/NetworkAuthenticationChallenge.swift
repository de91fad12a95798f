#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A challenge from the network layer.
public struct NetworkAuthenticationChallenge: Sendable {
    /// What the server asks for.
    public enum Kind: Sendable, Equatable {
        /// HTTP 401 with `WWW-Authenticate`: the schemes offered and the realm.
        case httpAuthentication(schemes: TransportOptions.HTTPAuthSchemes, realm: String?)
        /// The TLS server wants a client certificate.
        case clientCertificate
        /// The server's certificate did not verify.
        case serverTrust(reason: ServerTrustFailure)
    }
    /// The URL of the request.
    public var requestURL: URL
    /// The host-level context (`scheme://host:port`).
    public var host: ServerContext
    /// What is asked for.
    public var kind: Kind
    /// The transport's description of the failure (no secrets).
    public var message: String
    /// The network credential that was used and refused, if any.
    public var previousCredential: (any NetworkCredential)?

    /// Creates a challenge.
    public init(
        requestURL: URL, host: ServerContext, kind: Kind, message: String,
        previousCredential: (any NetworkCredential)? = nil
    ) {
        self.requestURL = requestURL
        self.host = host
        self.kind = kind
        self.message = message
        self.previousCredential = previousCredential
    }
}
