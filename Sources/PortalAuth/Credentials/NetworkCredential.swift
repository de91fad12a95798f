#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A credential for the network layer (HTTP authentication, client certificates, server trust),
/// bound to a host and port.
public protocol NetworkCredential: StoredCredential {
    /// The host-level context (`scheme://host:port`) the credential is for.
    var host: ServerContext { get }
    /// Adds what this credential contributes to a request's transport options.
    func apply(to options: inout TransportOptions)
}
