import Logging
public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Supplies a client certificate when a TLS server asks for one.
public protocol ClientCertificateProvider: Sendable {
    /// The certificate for the challenge's host, or `nil` to let the request fail. Throw a
    /// ``PortalAuth/PortalAuthError`` that says what to do when none can be had.
    func certificate(for challenge: NetworkAuthenticationChallenge) async throws -> CertificateCredential?
}

/// A provider that opens a PKCS#12 file with its password, for programs that hold both, and
/// presents it only to the hosts it is given (any other host that asks gets nothing).
public struct PKCS12FileProvider: ClientCertificateProvider {
    let path: String
    let password: String
    let hosts: [ServerContext]
    /// Creates the provider for the hosts (`scheme://host:port`) of `hosts`.
    public init(path: String, password: String, hosts: [URL]) throws {
        self.path = path
        self.password = password
        self.hosts = try hosts.map { try ServerContext.host(of: $0) }
    }
    /// Reads and opens the file when the challenge's host is one of the provider's hosts.
    public func certificate(for challenge: NetworkAuthenticationChallenge) async throws -> CertificateCredential? {
        guard hosts.contains(challenge.host) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PortalAuthError(
                .invalidArgument, "cannot read the PKCS#12 file \(path): it does not exist, or it is not readable",
                remedy: .provideClientCertificate(host: challenge.host.host, port: challenge.host.port))
        }
        return try CertificateCredential(host: challenge.host, pkcs12: Array(data), password: password, path: path)
    }
}

/// Answers "this server wants a client certificate" with a ``CertificateCredential`` from the
/// provider. Without a provider, stored certificates are still presented (they are read back
/// from the store), and a new challenge fails with what to run.
public struct CertificateHandler: AuthenticationChallengeHandler {
    let provider: (any ClientCertificateProvider)?

    /// Creates the handler.
    public init(provider: (any ClientCertificateProvider)? = nil) {
        self.provider = provider
    }

    /// ``CertificateCredential``.
    public var networkCredentialTypes: [any NetworkCredential.Type] { [CertificateCredential.self] }

    /// Client-certificate challenges, when there is a provider.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard provider != nil, case .network(let network) = challenge, case .clientCertificate = network.kind else {
            return false
        }
        return true
    }

    /// Asks the provider; warns about an expired certificate (the server will likely refuse it).
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .network(let network) = challenge, let provider,
            let credential = try await provider.certificate(for: network)
        else { return .continueWithoutCredential }
        if credential.isExpired {
            services.logger.warning(
                "the client certificate has expired",
                metadata: [
                    "subject": "\(credential.certificate.subject)", "notAfter": "\(credential.certificate.notAfter)",
                ])
        }
        return .continueWithCredential(.network(credential))
    }
}
