public import PortalAuth

extension CertificateCredential {
    /// A client certificate kept in PEM files (an unencrypted private key, and the certificate with
    /// any chain), as the ArcGIS API for Python's PKI profiles and curl's `--key`/`--cert` keep it,
    /// for `host`: the files are read and made into a PKCS#12 file under a random password
    /// (``PortalAuth/PEMClientCertificate``), which the credential then holds like any other. Throws
    /// what ``PortalAuth/PEMClientCertificate/init(keyFile:certificateFile:)`` throws; an error
    /// without a remedy of its own gets "give a client certificate for `host`".
    public init(host: ServerContext, privateKeyFile: String, certificateFile: String) throws {
        let pem: PEMClientCertificate
        do {
            pem = try PEMClientCertificate(keyFile: privateKeyFile, certificateFile: certificateFile)
        } catch var error as PortalAuthError where error.code != .libraryUnavailable && error.remedy == .none {
            error.remedy = .provideClientCertificate(host: host.host, port: host.port)
            throw error
        }
        try self.init(host: host, pkcs12: pem.pkcs12, password: pem.password, path: certificateFile)
    }
}
