internal import CPortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// A client certificate and its private key in PEM files, as the ArcGIS API for Python's PKI
/// profiles (`key_file`, `cert_file`), Python `requests` (`cert=(cert, key)`) and curl (`--cert`,
/// `--key`) keep them, made into the one form portal-auth presents: a PKCS#12 file (``pkcs12``)
/// under a random password of its own (``password``), as a ``PKCS12Bundle`` opens it.
///
/// OpenSSL reads both texts, each at most ``maximumFileSize`` bytes: the key must be unencrypted
/// (an encrypted key is refused, never asked about), and the certificates are the key's own and
/// any chain, in any order (other PEM blocks are skipped; at most 64 certificates). A certificate
/// that does not go with the key is refused. The key file is read as a ``SecretFile``: this user's
/// (or root's), with no access for group or other users. Nothing is written anywhere, and no
/// message quotes either file's contents.
public struct PEMClientCertificate: Sendable {
    /// The most bytes read of each PEM text (1 MiB; a key file is also bounded by ``SecretFile``).
    public static let maximumFileSize = Int(PA_PEM_MAXIMUM_BYTES)

    /// The key, the certificate and its chain as a PKCS#12 file (AES-256-CBC, PBKDF2).
    public let pkcs12: [UInt8]
    /// The PKCS#12 file's password: random, made for this file.
    public let password: String
    /// The certificate that goes with the key.
    public let certificate: CertificateSummary

    /// Reads the key file (by the rules of ``SecretFile``) and the certificate file, and makes the
    /// PKCS#12 file of them. Throws a ``PortalAuthError`` naming the file and what is wrong with it:
    /// missing, unreadable, too large, a key file others may read
    /// (``PortalAuthError/Remedy/fixSecretFile(path:problem:)``), an encrypted key, no key or no
    /// certificate, or a certificate that is not the key's.
    public init(keyFile: String, certificateFile: String) throws {
        let key: String
        do {
            key = try SecretFile(path: keyFile).read().secret
        } catch let error as PortalAuthError {
            guard case .fixSecretFile(_, let problem) = error.remedy else { throw error }
            throw PortalAuthError(
                error.code, "the private key file \(keyFile) \(problem.whatIsWrong)",
                remedy: problem == .missing ? .none : error.remedy)
        }
        try self.init(
            privateKeyPEM: Array(key.utf8), certificatesPEM: try Self.readCertificates(certificateFile),
            keyPath: keyFile, certificatePath: certificateFile)
    }

    /// Makes the PKCS#12 file of a PEM private key and PEM certificates held in memory; `keyPath`
    /// and `certificatePath` name where they came from in messages. Throws as
    /// ``init(keyFile:certificateFile:)`` does.
    public init(
        privateKeyPEM: [UInt8], certificatesPEM: [UInt8], keyPath: String? = nil, certificatePath: String? = nil
    ) throws {
        let password = PortalAuthCrypto.hex(try PortalAuthCrypto.randomBytes(24))
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        var error = [CChar](repeating: 0, count: 256)
        let rc = privateKeyPEM.withUnsafeBytes { key in
            certificatesPEM.withUnsafeBytes { certificates in
                pa_pkcs12_from_pem(
                    key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count,
                    certificates.baseAddress?.assumingMemoryBound(to: CChar.self), certificates.count, password, &out,
                    &count, &error, error.count)
            }
        }
        defer { pa_crypto_free_secret(out, count) }
        let files = Files(key: keyPath, certificate: certificatePath)
        if let refusal = files.refusal(
            Int(rc), reason: CString.text(error), keyIsLarge: privateKeyPEM.count > Self.maximumFileSize)
        {
            throw refusal
        }
        let bytes = Array(UnsafeBufferPointer(start: out, count: count))
        self.pkcs12 = bytes
        self.password = password
        self.certificate = try PKCS12Bundle(bytes: bytes, password: password).certificate
    }

    /// Where the two texts came from, for messages.
    struct Files {
        /// The key file's path, nil for a text in memory.
        var key: String?
        /// The certificate file's path, nil for a text in memory.
        var certificate: String?

        /// `the private key file PATH` (or `the private key text`).
        var keyName: String { key.map { "the private key file \($0)" } ?? "the private key text" }
        /// `the certificate file PATH` (or `the certificate text`).
        var certificateName: String { certificate.map { "the certificate file \($0)" } ?? "the certificate text" }

        /// The error for `pa_pkcs12_from_pem`'s code, nil for success.
        func refusal(_ rc: Int, reason: String, keyIsLarge: Bool) -> PortalAuthError? {
            let cause = PortalAuthError.Cause.openSSL(message: reason)
            switch rc {
            case PA_PEM_OK: return nil
            case PA_PEM_KEY_ENCRYPTED:
                return PortalAuthError(
                    .invalidArgument,
                    "\(keyName) is encrypted: it asks for a passphrase, which is not asked for here (keep the key "
                        + "encrypted in a PKCS#12 file instead: openssl pkcs12 -export -inkey \(key ?? "KEY") -in "
                        + "\(certificate ?? "CERT") -out client.p12)", cause: cause)
            case PA_PEM_NO_KEY:
                return PortalAuthError(
                    .invalidArgument, "\(keyName) holds no PEM private key (\(reason))", cause: cause)
            case PA_PEM_NO_CERTIFICATE:
                return PortalAuthError(
                    .invalidArgument, "\(certificateName) holds no readable PEM certificate (\(reason))", cause: cause)
            case PA_PEM_MISMATCH:
                return PortalAuthError(
                    .invalidArgument,
                    "no certificate of \(certificateName) goes with \(keyName) (their public keys differ): they are "
                        + "not a pair", cause: cause)
            case PA_PEM_TOO_LARGE:
                return PortalAuthError(
                    .invalidArgument,
                    "\(keyIsLarge ? keyName : certificateName) is larger than a client certificate "
                        + "is (\(reason))", cause: cause)
            case PA_PEM_UNAVAILABLE:
                return PortalAuthError(
                    .libraryUnavailable, "OpenSSL's libcrypto could not be loaded (\(reason))",
                    remedy: .installLibrary(package: "libssl3"), cause: cause)
            default:
                return PortalAuthError(
                    .internalError,
                    "OpenSSL could not make a PKCS#12 file of \(keyName) and \(certificateName) "
                        + "(\(reason))", cause: cause)
            }
        }
    }

    /// The certificate file's bytes (a regular file, at most one byte more than
    /// ``maximumFileSize``, which the reader refuses).
    static func readCertificates(_ path: String) throws -> [UInt8] {
        func refusal(_ what: String) -> PortalAuthError {
            PortalAuthError(.invalidArgument, "the certificate file \(path) \(what)")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            throw refusal(code == ENOENT ? "does not exist" : "cannot be read (\(String(cString: strerror(code))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw refusal("is not a regular file")
        }
        var bytes = [UInt8](repeating: 0, count: maximumFileSize + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw refusal("cannot be read (\(String(cString: strerror(errno))))") }
            if got == 0 { break }
            count += got
        }
        return Array(bytes[..<count])
    }
}
