import PortalAuth

extension FuzzTargets {
    /// PEM private keys and certificates through OpenSSL (C: `pa_pkcs12_from_pem`, what `import
    /// arcgis-profile` reads of a PKI profile's `key_file` and `cert_file`): the bytes before the
    /// first NUL are the key text, the rest the certificate text. Whatever is accepted is a PKCS#12
    /// file that opens with its own password and holds the certificate it describes.
    public static func pemClientCertificate(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let key = Array(bytes[..<split])
        let certificates = split < bytes.endIndex ? Array(bytes[(split + 1)...]) : []
        guard let made = try? PEMClientCertificate(privateKeyPEM: key, certificatesPEM: certificates) else { return }
        precondition(made.password.utf8.count == 48, "a short PKCS#12 password")
        guard let reopened = try? PKCS12Bundle(bytes: made.pkcs12, password: made.password) else {
            preconditionFailure("the PKCS#12 file made does not open with its password")
        }
        precondition(reopened.certificate == made.certificate, "the PKCS#12 file holds another certificate")
    }
}
