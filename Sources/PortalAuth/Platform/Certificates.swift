internal import CPortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What portal-auth shows and keeps of an X.509 certificate: who it names, who issued it, when it
/// is valid, its SHA-256 fingerprint and the pin of its public key.
public struct CertificateSummary: Sendable, Equatable, Codable {
    /// The subject, RFC 2253 (`CN=host,O=Org`).
    public var subject: String
    /// The issuer, RFC 2253.
    public var issuer: String
    /// The start of the validity period.
    public var notBefore: Date
    /// The end of the validity period.
    public var notAfter: Date
    /// The SHA-256 of the certificate's DER, as `openssl x509 -fingerprint -sha256` writes it (`AA:BB:…`).
    public var sha256Fingerprint: String
    /// The SHA-256 of the SubjectPublicKeyInfo as libcurl pins it (`sha256//BASE64`).
    public var publicKeyPin: String

    /// Creates a summary.
    public init(
        subject: String, issuer: String, notBefore: Date, notAfter: Date, sha256Fingerprint: String,
        publicKeyPin: String
    ) {
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.sha256Fingerprint = sha256Fingerprint
        self.publicKeyPin = publicKeyPin
    }

    /// Whether `date` is outside the validity period.
    public func isExpired(at date: Date = Date()) -> Bool { date > notAfter || date < notBefore }

    /// Reads the first certificate of a PEM text.
    public init(pem: String) throws {
        try PortalAuthCrypto.load()
        var info = pa_x509_info()
        var error = [CChar](repeating: 0, count: 256)
        let bytes = Array(pem.utf8)
        let rc = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                pa_x509_from_pem($0.baseAddress, $0.count, &info, &error, error.count)
            }
        }
        guard rc == 0 else {
            let reason = CString.text(error)
            throw PortalAuthError(
                .invalidArgument, "the certificate could not be read (\(reason))", cause: .openSSL(message: reason))
        }
        defer { pa_x509_info_free(&info) }
        try self.init(info)
    }

    init(_ info: pa_x509_info) throws {
        let der = Array(UnsafeBufferPointer(start: info.der, count: info.der_len))
        let spki = withUnsafeBytes(of: info.spki_sha256) { Array($0) }
        self.init(
            subject: CString.text(info.subject),
            issuer: CString.text(info.issuer),
            notBefore: Date(timeIntervalSince1970: TimeInterval(info.not_before)),
            notAfter: Date(timeIntervalSince1970: TimeInterval(info.not_after)),
            sha256Fingerprint: PortalAuthCrypto.hex(try PortalAuthCrypto.sha256(der), separator: ":"),
            publicKeyPin: "sha256//" + Data(spki).base64EncodedString())
    }

    /// A SHA-256 fingerprint written with or without colons, in either case, as `AA:BB:…`;
    /// `nil` when it is not 32 bytes of hexadecimal.
    public static func normalizedFingerprint(_ text: String) -> String? {
        var digits = text.trimmedWhitespace.uppercased()
        if digits.hasPrefix("SHA256:") { digits.removeFirst(7) }
        if digits.hasPrefix("SHA256 FINGERPRINT=") { digits.removeFirst(19) }
        let hex = Array(digits.filter { $0 != ":" })
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return PortalAuthCrypto.hex(bytes, separator: ":")
    }
}

/// A PKCS#12 (`.p12`, `.pfx`) file opened with its password: the client certificate and its key.
///
/// OpenSSL's legacy provider is loaded first, so files made with older ciphers (RC2, 3DES; what
/// `openssl pkcs12 -export -legacy` and older Windows exports write) open too.
public struct PKCS12Bundle: Sendable {
    /// The file's bytes, as they are presented to servers.
    public let bytes: [UInt8]
    /// The certificate that goes with the private key.
    public let certificate: CertificateSummary

    /// Opens the bytes with the password. Throws a ``PortalAuthError`` that says which of these it
    /// is: a wrong password (``PortalAuthError/Code/authenticationFailed``), not a PKCS#12 file, a
    /// file without a private key, or a cipher this OpenSSL cannot use (``PortalAuthError/Code/invalidArgument``).
    /// `path` names the file the bytes were read from in messages (they say "the PKCS#12 data"
    /// without one).
    public init(bytes: [UInt8], password: String, path: String? = nil) throws {
        let name = path ?? "the PKCS#12 data"
        try PortalAuthCrypto.load()
        var info = pa_x509_info()
        var error = [CChar](repeating: 0, count: 256)
        let rc = bytes.withUnsafeBufferPointer {
            pa_pkcs12_inspect($0.baseAddress, $0.count, password, &info, &error, error.count)
        }
        let reason = CString.text(error)
        let cause = PortalAuthError.Cause.openSSL(message: reason)
        switch Int(rc) {
        case PA_P12_OK: break
        case PA_P12_WRONG_PASSWORD:
            throw PortalAuthError(
                .authenticationFailed,
                "the password of \(name) is wrong (its integrity check fails with it); nothing was stored",
                remedy: .provide(.password), cause: cause)
        case PA_P12_NO_KEY:
            throw PortalAuthError(
                .invalidArgument,
                "\(name) holds no private key, only certificates (it was exported without its key); nothing was stored",
                cause: cause)
        case PA_P12_NO_CERTIFICATE:
            throw PortalAuthError(
                .invalidArgument,
                "\(name) holds a private key but no certificate for it (it was exported without it); nothing "
                    + "was stored",
                cause: cause)
        case PA_P12_UNSUPPORTED:
            throw PortalAuthError(
                .invalidArgument,
                "\(name) uses a cipher this OpenSSL cannot read (\(reason); its legacy provider may be missing); "
                    + "nothing was stored",
                cause: cause)
        case PA_P12_UNAVAILABLE:
            throw PortalAuthError(
                .libraryUnavailable,
                "OpenSSL's libcrypto could not be loaded (\(reason))", remedy: .installLibrary(package: "libssl3"),
                cause: cause)
        default:
            throw PortalAuthError(
                .invalidArgument,
                "\(name) is not a readable PKCS#12 file (\(reason)): not a .p12/.pfx file, or damaged; nothing "
                    + "was stored",
                cause: cause)
        }
        defer { pa_x509_info_free(&info) }
        self.bytes = bytes
        self.certificate = try CertificateSummary(info)
    }

    /// Loads OpenSSL's legacy provider for the whole process (libcurl shares it), so a legacy
    /// PKCS#12 file can be presented in a TLS handshake. Called by the transport before it
    /// presents a client certificate.
    static func enableLegacyCiphers() {
        var error = [CChar](repeating: 0, count: 256)
        _ = pa_crypto_enable_legacy(&error, error.count)
    }
}

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

extension PKCS12Bundle {
    /// Opens the bytes with the password; `name` was how messages called the file.
    @available(*, deprecated, renamed: "init(bytes:password:path:)")
    public init(bytes: [UInt8], password: String, name: String) throws {
        try self.init(bytes: bytes, password: password, path: name)
    }
}
