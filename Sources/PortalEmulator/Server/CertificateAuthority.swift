import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway certificate authority and the server certificate it signs, made at start-up.
struct CertificateAuthority: Sendable {
    /// The CA certificate, PEM.
    let caCertificatePEM: String
    /// The server certificate, PEM.
    let serverCertificatePEM: String
    /// The server's private key, PEM (PKCS#8).
    let serverKeyPEM: String

    /// Makes a P-256 CA and a server certificate for localhost, 127.0.0.1, ::1 and `extraHostnames`
    /// (entries that parse as IP addresses become IP SANs).
    static func make(extraHostnames: [String]) throws -> CertificateAuthority {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            CommonName("portal-emulator throwaway CA")
            OrganizationName("portal-emulator")
        }
        let caPublicKey = Certificate.PublicKey(caKey.publicKey)
        let caKeyID = SubjectKeyIdentifier(hash: caPublicKey).keyIdentifier
        let ca = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: caPublicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(keyIdentifier: caKeyID)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))

        let serverKey = P256.Signing.PrivateKey()
        let serverPublicKey = Certificate.PublicKey(serverKey.publicKey)
        let serverName = try DistinguishedName {
            CommonName("localhost")
            OrganizationName("portal-emulator")
        }
        let names = serverNames(extraHostnames: extraHostnames)
        let server = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: serverPublicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: caName,
            subject: serverName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyAgreement: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: serverPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: caKeyID)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))

        return CertificateAuthority(
            caCertificatePEM: try ca.serializeAsPEM().pemString,
            serverCertificatePEM: try server.serializeAsPEM().pemString,
            serverKeyPEM: serverKey.pemRepresentation)
    }

    /// The server certificate's subject alternative names: localhost, 127.0.0.1, ::1 and
    /// `extraHostnames` (IP addresses as IP names, the rest as DNS names in lower case).
    private static func serverNames(extraHostnames: [String]) -> [GeneralName] {
        var names: [GeneralName] = [
            .dnsName("localhost"),
            .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            .ipAddress(ASN1OctetString(contentBytes: ArraySlice(Array(repeating: 0, count: 15) + [1]))),
        ]
        for host in extraHostnames where !host.isEmpty {
            if let bytes = IPAddressBytes.parse(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))))
            } else {
                names.append(.dnsName(host.lowercased()))
            }
        }
        return names
    }
}

/// Parses textual IPv4 and IPv6 addresses into bytes.
enum IPAddressBytes {
    /// 4 or 16 bytes, or nil when `text` is not an IP address.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
