public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A client certificate (PKCS#12, `.p12`/`.pfx`) and its password, presented in the TLS handshake
/// to one host and port (``host``) only.
///
/// The credential keeps the PKCS#12 bytes themselves (not a path that can go stale) and presents
/// them from memory (libcurl's `CURLOPT_SSLCERT_BLOB`): no temporary file is ever written.
/// Files made with older ciphers (RC2, 3DES) open too: OpenSSL's legacy provider is loaded.
public struct CertificateCredential: NetworkCredential, Equatable {
    /// `client-certificate`.
    public static let kind = "client-certificate"
    /// The host-level context (`https://host:port`) the certificate is presented to.
    public let host: ServerContext
    /// The PKCS#12 bytes.
    public let pkcs12: [UInt8]
    /// The PKCS#12 password.
    public let password: String
    /// The certificate's subject, issuer, validity and fingerprint.
    public let certificate: CertificateSummary

    /// The certificate's subject, for `status` (the user column).
    public var username: String? { certificate.subject }

    /// Opens the PKCS#12 bytes with the password for `host`. Throws a ``PortalAuth/PortalAuthError``
    /// for a wrong password, a corrupt file, or a file without a private key (see
    /// ``PortalAuth/PKCS12Bundle``). An expired certificate is accepted (check ``isExpired``:
    /// servers refuse it, and the CLI warns). `path` names the file the bytes were read from in
    /// messages.
    public init(host: ServerContext, pkcs12: [UInt8], password: String, path: String? = nil) throws {
        guard host.scheme == "https" else {
            throw PortalAuthError(
                .invalidArgument,
                "a client certificate is presented in a TLS handshake, and \(host.url) is plain http",
                remedy: URL(string: host.url).map { .useHTTPS(url: $0) } ?? .none)
        }
        let bundle: PKCS12Bundle
        do {
            bundle = try PKCS12Bundle(bytes: pkcs12, password: password, path: path)
        } catch var error as PortalAuthError where error.code != .libraryUnavailable {
            // A wrong password, or a file that is no client certificate: give another for this host.
            error.remedy = .provideClientCertificate(host: host.host, port: host.port)
            throw error
        }
        self.host = host
        self.pkcs12 = pkcs12
        self.password = password
        self.certificate = bundle.certificate
    }

    /// Whether the certificate is outside its validity period now.
    public var isExpired: Bool { certificate.isExpired() }

    /// The certificate for this request (only requests to ``host`` get it).
    public func apply(to options: inout TransportOptions) {
        options.clientCertificate = TransportOptions.ClientCertificate(pkcs12: pkcs12, password: password)
    }

    enum CodingKeys: String, CodingKey { case host, pkcs12, password, certificate }

    /// Encodes the PKCS#12 bytes as base64.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(host, forKey: .host)
        try container.encode(Data(pkcs12).base64EncodedString(), forKey: .pkcs12)
        try container.encode(password, forKey: .password)
        try container.encode(certificate, forKey: .certificate)
    }

    /// Decodes what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        host = try container.decode(ServerContext.self, forKey: .host)
        guard let bytes = Data(base64Encoded: try container.decode(String.self, forKey: .pkcs12)) else {
            throw DecodingError.dataCorruptedError(
                forKey: .pkcs12, in: container, debugDescription: "the PKCS#12 bytes are not base64")
        }
        pkcs12 = Array(bytes)
        password = try container.decode(String.self, forKey: .password)
        certificate = try container.decode(CertificateSummary.self, forKey: .certificate)
    }

    /// Not renewed: it works until the certificate's end of validity.
    public var renewal: CredentialRenewal { .cannotRenew(endsAt: certificate.notAfter) }
}

extension CertificateCredential {
    /// Opens the PKCS#12 bytes with the password for `host`; `name` was how messages called the file.
    @available(*, deprecated, renamed: "init(host:pkcs12:password:path:)")
    public init(host: ServerContext, pkcs12: [UInt8], password: String, name: String) throws {
        try self.init(host: host, pkcs12: pkcs12, password: password, path: name)
    }
}
