import Foundation
import PortalAuthCertificate
import Testing

@testable import PortalAuth

/// A client certificate in PEM files (a PKI profile's `key_file` and `cert_file`) made into the
/// PKCS#12 file portal-auth presents, and every refusal, on the fuzz corpus's seeds (a key, then
/// NUL, then certificates: a P-256 client certificate and its CA) written to real files.
@Suite struct PEMClientCertificateTests {
    /// A seed of Fuzz/Corpus/PEMClientCertificate: its key text and its certificate text.
    static func seed(_ name: String) throws -> (key: String, certificates: String) {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fuzz/Corpus/PEMClientCertificate/" + name)
        let bytes = Array(try Data(contentsOf: corpus))
        let split = try #require(bytes.firstIndex(of: 0))
        return (
            String(decoding: bytes[..<split], as: UTF8.self), String(decoding: bytes[(split + 1)...], as: UTF8.self)
        )
    }

    /// The seed's two texts as a private key file (0600) and a certificate file (0644).
    static func files(
        _ name: String, in folder: SecretFolder, keyMode: mode_t = 0o600
    ) throws -> (
        key: String, certificate: String
    ) {
        let seed = try seed(name)
        return (
            folder.write(name + ".key", seed.key, mode: keyMode),
            folder.write(name + ".pem", seed.certificates, mode: 0o644)
        )
    }

    /// Every line of every seed's texts, which no message may quote.
    static let seedLines: [String] = {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fuzz/Corpus/PEMClientCertificate")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.flatMap { name in
            let text = (try? Data(contentsOf: corpus.appendingPathComponent(name))).map {
                String(decoding: $0, as: UTF8.self)
            }
            return (text ?? "").split(whereSeparator: { $0 == "\n" || $0 == "\0" }).map(String.init).filter {
                $0.count >= 16
            }
        }
    }()

    /// The refusal's text, checked to quote nothing of the PEM texts.
    static func refusal(_ body: () throws -> Any) -> PortalAuthError? {
        do {
            _ = try body()
            return nil
        } catch let error as PortalAuthError {
            #expect(!seedLines.isEmpty)
            #expect(!seedLines.contains { error.message.contains($0) }, "\(error.message)")
            #expect(!error.message.contains("-----"), "\(error.message)")
            return error
        } catch {
            Issue.record("not a PortalAuthError: \(error)")
            return nil
        }
    }

    @Test(arguments: ["pkcs8-leaf-and-chain", "chain-first", "traditional-ec", "combined-file"])
    func aKeyAndItsCertificateBecomeAPKCS12FileUnderARandomPassword(seed: String) throws {
        let folder = SecretFolder()
        let files = try Self.files(seed, in: folder)
        let made = try PEMClientCertificate(keyFile: files.key, certificateFile: files.certificate)
        #expect(made.certificate.subject == "CN=fuzz client")
        #expect(made.certificate.issuer == "CN=fuzz CA")
        #expect(made.password.count == 48)
        let opened = try PKCS12Bundle(bytes: made.pkcs12, password: made.password)
        #expect(opened.certificate == made.certificate)
        let again = try PEMClientCertificate(keyFile: files.key, certificateFile: files.certificate)
        #expect(again.password != made.password)
    }

    @Test(arguments: ["pkcs8-encrypted", "traditional-encrypted"])
    func anEncryptedKeyIsRefusedWithoutAskingForItsPassphrase(seed: String) throws {
        let folder = SecretFolder()
        let files = try Self.files(seed, in: folder)
        let error = try #require(
            Self.refusal { try PEMClientCertificate(keyFile: files.key, certificateFile: files.certificate) })
        #expect(error.message.hasPrefix("the private key file \(files.key) is encrypted"), "\(error.message)")
        #expect(error.message.contains("openssl pkcs12 -export -inkey \(files.key) -in \(files.certificate)"))
    }

    @Test func aCertificateOfAnotherKeyIsRefused() throws {
        let folder = SecretFolder()
        let files = try Self.files("mismatched", in: folder)
        let error = try #require(
            Self.refusal { try PEMClientCertificate(keyFile: files.key, certificateFile: files.certificate) })
        #expect(error.message.contains("goes with the private key file \(files.key)"), "\(error.message)")
        #expect(error.message.contains("not a pair"))
    }

    @Test func aKeyFileOthersMayReadIsRefusedWithItsFix() throws {
        let folder = SecretFolder()
        let files = try Self.files("pkcs8-leaf-and-chain", in: folder, keyMode: 0o644)
        let error = try #require(
            Self.refusal { try PEMClientCertificate(keyFile: files.key, certificateFile: files.certificate) })
        #expect(error.message == "the private key file \(files.key) has mode 0644: other users may read or change it")
        #expect(error.remedy == .fixSecretFile(path: files.key, problem: .loosePermissions(mode: "0644")))
    }

    @Test func missingFilesAndTextsWithoutKeyOrCertificateAreRefused() throws {
        let folder = SecretFolder()
        let files = try Self.files("pkcs8-leaf-and-chain", in: folder)
        let noKey = Self.refusal {
            try PEMClientCertificate(keyFile: folder.path + "/none.key", certificateFile: files.certificate)
        }
        #expect(noKey?.message == "the private key file \(folder.path)/none.key does not exist")
        #expect(noKey?.remedy == PortalAuthError.Remedy.none)
        let noCertificate = Self.refusal {
            try PEMClientCertificate(keyFile: files.key, certificateFile: folder.path + "/none.pem")
        }
        #expect(noCertificate?.message == "the certificate file \(folder.path)/none.pem does not exist")
        // A certificate file given as the key, and the key given as the certificate file.
        let swapped = Self.refusal {
            try PEMClientCertificate(
                keyFile: folder.write("cert-as.key", try Self.seed("mismatched").certificates),
                certificateFile: files.key)
        }
        #expect(swapped?.message.contains("holds no PEM private key") == true, "\(String(describing: swapped))")
        let keyOnly = Self.refusal {
            try PEMClientCertificate(keyFile: files.key, certificateFile: files.key)
        }
        #expect(keyOnly?.message.contains("holds no readable PEM certificate") == true)
    }

    @Test func aCertificateTextBeyondTheBoundIsRefusedUnread() throws {
        let seed = try Self.seed("pkcs8-leaf-and-chain")
        let padded =
            Array(seed.certificates.utf8) + [UInt8](repeating: 0x0A, count: PEMClientCertificate.maximumFileSize)
        let error = Self.refusal {
            try PEMClientCertificate(privateKeyPEM: Array(seed.key.utf8), certificatesPEM: padded)
        }
        #expect(error?.message.contains("the certificate text is larger than a client certificate is") == true)
        let folder = SecretFolder()
        let file = folder.write("large.pem", String(decoding: padded, as: UTF8.self), mode: 0o644)
        let fromFile = Self.refusal {
            try PEMClientCertificate(keyFile: folder.write("k", seed.key), certificateFile: file)
        }
        #expect(fromFile?.message.contains("the certificate file \(file) is larger") == true)
    }

    /// The plugin's credential: for an https host only, with the PKCS#12 file the PEM files made;
    /// a refusal without a fix of its own says to give a client certificate for the host.
    @Test func theCertificatePluginMakesItsCredentialOfPEMFiles() throws {
        let folder = SecretFolder()
        let files = try Self.files("pkcs8-leaf-and-chain", in: folder)
        let host = try ServerContext("https://pki.example.com:8443")
        let credential = try CertificateCredential(
            host: host, privateKeyFile: files.key, certificateFile: files.certificate)
        #expect(credential.certificate.subject == "CN=fuzz client")
        #expect(
            try PKCS12Bundle(bytes: credential.pkcs12, password: credential.password).certificate.subject
                == "CN=fuzz client")
        let mismatched = try Self.files("mismatched", in: folder)
        let error = Self.refusal {
            try CertificateCredential(
                host: host, privateKeyFile: mismatched.key, certificateFile: mismatched.certificate)
        }
        #expect(error?.remedy == .provideClientCertificate(host: "pki.example.com", port: 8443))
        let plain = Self.refusal {
            try CertificateCredential(
                host: try ServerContext("http://pki.example.com"), privateKeyFile: files.key,
                certificateFile: files.certificate)
        }
        #expect(plain?.message.contains("plain http") == true)
    }
}
