import PortalAuth
import PortalAuthCertificate
import PortalAuthPassword

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --url URL --p12 FILE` and `login --url URL --kerberos`: what a server secured at the web tier takes besides a password.
extension Login {
    func loginWithKerberosTicket() async throws {
        let target = try parseURL(place.url!)
        let host = try ServerContext.host(of: target)
        let manager = try global.makeManager()
        try manager.networkCredentialStore.backend.checkAvailable()
        guard let principal = KerberosTicket.current() else {
            throw PortalAuthError(
                .secretMissing,
                "you have no Kerberos ticket (klist shows none, or it expired): run kinit, or sign in with --username "
                    + "USER --password-stdin"
            )
        }
        let credential = PasswordCredential.kerberosTicket(host: host, realm: nil, principal: principal)
        try await manager.signIn(with: credential, verifying: target)
        output(
            "Signed in to \(host) as \(principal) with your Kerberos ticket (Negotiate); renew it with kinit (stored "
                + "in \(manager.networkCredentialStore.backend.name))."
        )
    }

    func loginWithClientCertificate(path: String) async throws {
        let target = try parseURL(place.url!)
        let host = try ServerContext.host(of: target)
        let manager = try global.makeManager()
        try manager.networkCredentialStore.backend.checkAvailable()
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PortalAuthError(
                .invalidArgument,
                "cannot read the PKCS#12 file \(path) (it does not exist, or it is not readable); nothing was stored",
                remedy: .provideClientCertificate(host: host.host, port: host.port))
        }
        let password = try readPassword(for: path, who: "the PKCS#12 file")
        let credential = try CertificateCredential(host: host, pkcs12: Array(data), password: password, path: path)
        if credential.isExpired {
            printWarning(
                "the certificate \(credential.certificate.subject) is not valid now (valid "
                    + "\(credential.certificate.notBefore.iso8601) to \(credential.certificate.notAfter.iso8601)): the "
                    + "server will likely refuse it"
            )
        }
        try await manager.signIn(with: credential, verifying: target)
        output(
            "Stored the client certificate \(credential.certificate.subject) (issued by "
                + "\(credential.certificate.issuer), valid until \(credential.certificate.notAfter.iso8601)) for "
                + "\(host) (in \(manager.networkCredentialStore.backend.name))."
        )
    }

}
