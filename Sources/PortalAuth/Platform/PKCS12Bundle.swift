internal import CPortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

extension PKCS12Bundle {
    /// Opens the bytes with the password; `name` was how messages called the file.
    @available(*, deprecated, renamed: "init(bytes:password:path:)")
    public init(bytes: [UInt8], password: String, name: String) throws {
        try self.init(bytes: bytes, password: password, path: name)
    }
}
