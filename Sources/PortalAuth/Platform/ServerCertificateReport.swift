internal import CPortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a server presents in its TLS handshake, and whether it verifies.
public struct ServerCertificateReport: Sendable, Equatable {
    /// `host:port`.
    public var host: String
    /// The port.
    public var port: Int
    /// The server's own certificate.
    public var certificate: CertificateSummary
    /// Why it does not verify against the trusted CAs, or `nil` when it does.
    public var failure: ServerTrustFailure?
    /// libcurl's words for the failure (empty when it verifies).
    public var failureText: String

    /// Creates a report.
    public init(
        host: String, port: Int, certificate: CertificateSummary, failure: ServerTrustFailure?, failureText: String
    ) {
        self.host = host
        self.port = port
        self.certificate = certificate
        self.failure = failure
        self.failureText = failureText
    }
}
