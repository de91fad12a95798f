#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the transport reports when the TLS layer, not HTTP, needs a decision.
public enum TransportChallenge: Sendable, Equatable {
    /// The server's certificate did not verify.
    case serverTrust(host: String, port: Int, reason: ServerTrustFailure, message: String)
    /// The server asked for a client certificate and none was presented (or it was refused).
    case clientCertificate(host: String, port: Int, message: String)
}
