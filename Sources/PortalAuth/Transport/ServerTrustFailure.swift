#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a server certificate did not verify.
public enum ServerTrustFailure: String, Sendable, Equatable, Codable {
    /// A self-signed certificate.
    case selfSigned = "self-signed"
    /// The certificate has expired (or is not yet valid).
    case expired
    /// The certificate does not name this host.
    case wrongHost = "wrong host"
    /// Signed by a CA that is not trusted.
    case unknownCA = "unknown CA"
    /// A pinned public key did not match.
    case pinMismatch = "pinned key mismatch"
    /// Anything else.
    case other
}
