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
