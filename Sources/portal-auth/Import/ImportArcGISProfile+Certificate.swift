import ArgumentParser
import PortalAuth
import PortalAuthCertificate

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImportArcGISProfile {
    /// A PKI profile (`key_file`, `cert_file`: a PEM private key and certificate, which the API
    /// hands to `requests`): made into a client certificate for the profile's host, presented to the
    /// host in one request (its `rest/info`), and stored only when the host accepted it, as
    /// `login --url URL --p12 FILE` stores one. The key file must be the user's and private; the
    /// files are only read.
    static func importCertificate(
        _ profile: ArcGISProfile, url: String, keyFile: String?, certFile: String, manager: AuthenticationManager
    ) async throws -> String {
        let target =
            profile.source == .portal
            ? try PortalURLInput.read(url, source: "its url", doing: "signing in to") : try parseURL(url)
        let host = try ServerContext.host(of: target)
        guard let keyFile else {
            // The API reads such a cert_file as a PKCS#12 file, whose password it keeps in the keyring.
            let isPKCS12 = [".p12", ".pfx"].contains { certFile.lowercased().hasSuffix($0) }
            throw ValidationError(
                "it names a cert_file without a key_file: run portal-auth login --url \(host) --p12 "
                    + "\(isPKCS12 ? certFile : "FILE") --password-stdin")
        }
        try manager.networkCredentialStore.backend.checkAvailable()
        let credential = try CertificateCredential(host: host, privateKeyFile: keyFile, certificateFile: certFile)
        let summary = credential.certificate
        if credential.isExpired {
            printWarning(
                "the certificate \(summary.subject) of profile \(profile.name) is not valid now (valid "
                    + "\(summary.notBefore.iso8601) to \(summary.notAfter.iso8601)): the server will likely refuse it")
        }
        try await manager.signIn(with: credential, verifying: infoURL(of: target, source: profile.source))
        return "stored the client certificate \(summary.subject) (issued by \(summary.issuer), valid until "
            + "\(summary.notAfter.iso8601)) for \(host) (in \(manager.networkCredentialStore.backend.name)); it is "
            + "presented to \(host) only."
    }

    /// The page the certificate is presented to once: the portal's `sharing/rest/info`, or the
    /// server's `rest/info` (the profile's URL itself when it names neither).
    static func infoURL(of target: URL, source: ArcGISProfile.Source) throws -> URL {
        if source == .portal, let context = try? ServerContext(url: target) {
            return URL(string: context.portalRESTURL + "/info?f=json") ?? target
        }
        guard let root = ServerContext.arcGISServerRoot(of: target) else { return target }
        return URL(string: root.url + "/rest/info?f=json") ?? target
    }
}
