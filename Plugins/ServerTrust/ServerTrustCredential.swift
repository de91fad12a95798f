public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A decision to trust one server whose certificate does not verify (self-signed, expired, for
/// another name, from an unknown CA): its public key is pinned for that host and port only.
///
/// Requests to ``host`` then accept exactly that public key (libcurl's `CURLOPT_PINNEDPUBLICKEY`)
/// instead of CA verification; verification is never switched off for another host, or
/// globally. A server whose key changes afterwards fails loudly, naming the old and new fingerprints.
public struct ServerTrustCredential: NetworkCredential, Equatable {
    /// `server-trust`.
    public static let kind = "server-trust"
    /// The host-level context (`https://host:port`).
    public let host: ServerContext
    /// The certificate that was trusted.
    public let certificate: CertificateSummary
    /// Why it did not verify when it was trusted.
    public let reason: ServerTrustFailure
    /// When the decision was made.
    public let trustedAt: Date

    /// No user: a trust decision is the machine's, not an account's.
    public var username: String? { nil }

    /// Trusts the certificate of `report` for its host and port.
    public init(_ report: ServerCertificateReport, trustedAt: Date = Date()) throws {
        self.host = try ServerContext.host(
            of: URL(string: "https://\(report.host.contains(":") ? "[\(report.host)]" : report.host):\(report.port)")!)
        self.certificate = report.certificate
        self.reason = report.failure ?? .other
        self.trustedAt = trustedAt
    }

    /// Pins the trusted public key for requests to ``host``.
    public func apply(to options: inout TransportOptions) {
        options.pinnedPublicKey = certificate.publicKeyPin
    }
}

/// Decides whether to trust a server whose certificate does not verify (the CLI asks on a
/// terminal, or confirms a fingerprint given ahead without asking).
public protocol ServerTrustDecider: Sendable {
    /// Whether to trust `report`'s certificate for its host and port.
    func shouldTrust(_ report: ServerCertificateReport) async throws -> Bool
}

/// Answers server-trust challenges: asks the decider (when there is one) whether to trust a
/// certificate that does not verify, and turns a pinned server's changed key into a loud error
/// that names both fingerprints.
public struct ServerTrustHandler: AuthenticationChallengeHandler {
    let decider: (any ServerTrustDecider)?

    /// Creates the handler. Without a decider, stored decisions still apply and a changed key is
    /// still reported, but no new server is trusted.
    public init(decider: (any ServerTrustDecider)? = nil) {
        self.decider = decider
    }

    /// ``ServerTrustCredential``.
    public var networkCredentialTypes: [any NetworkCredential.Type] { [ServerTrustCredential.self] }

    /// A pinned key that no longer matches, and (with a decider) certificates that do not verify.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .network(let network) = challenge, case .serverTrust(let reason) = network.kind else { return false }
        return reason == .pinMismatch || decider != nil
    }

    /// See ``ServerTrustHandler``.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .network(let network) = challenge, case .serverTrust(let reason) = network.kind else {
            return .continueWithoutCredential
        }
        let report = try await services.transport.serverCertificate(host: network.host.host, port: network.host.port)
        if reason == .pinMismatch {
            throw Self.keyChanged(
                host: network.host, trusted: network.previousCredential as? ServerTrustCredential, now: report)
        }
        guard let decider, report.failure != nil else { return .continueWithoutCredential }
        guard try await decider.shouldTrust(report) else { return .cancel }
        return .continueWithCredential(.network(try ServerTrustCredential(report)))
    }

    /// The error for a trusted server that now presents another key.
    public static func keyChanged(
        host: ServerContext, trusted: ServerTrustCredential?, now report: ServerCertificateReport
    ) -> PortalAuthError {
        let place = "\(host.host):\(host.port)"
        let old = trusted.map { "trusted \($0.certificate.sha256Fingerprint)" } ?? "trusted key unknown"
        return PortalAuthError(
            .untrustedServer,
            "the certificate of \(place) CHANGED since it was trusted (\(old), now "
                + "\(report.certificate.sha256Fingerprint), "
                + "subject \(report.certificate.subject)): nothing was sent; unless expected, someone may be "
                + "intercepting",
            remedy: .trustServerAgain(host: host.host, port: host.port), cause: .other("pinned public key mismatch"))
    }
}
