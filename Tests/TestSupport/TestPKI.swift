import CPortalAuth
import Foundation

// MARK: - PKI

/// A throwaway PKI made with the `openssl` command: a test CA, server certificates and client
/// certificates as PEM and PKCS#12 files, all in one directory.
///
/// Every private key is unencrypted PEM; every PKCS#12 file is protected by ``p12Password``.
public struct TestPKI: Sendable {
    /// The directory that holds every file below.
    public let directory: String
    /// The test CA's certificate (PEM): the CA bundle that trusts ``serverCertificatePath`` and
    /// signed the client certificates nginx accepts.
    public let caCertificatePath: String
    /// The test CA's private key (PEM).
    public let caKeyPath: String
    /// A server certificate for `localhost` and IP 127.0.0.1 signed by the test CA (PEM).
    public let serverCertificatePath: String
    /// The key of ``serverCertificatePath`` (PEM).
    public let serverKeyPath: String
    /// A self-signed server certificate for `localhost` and IP 127.0.0.1 (PEM): no CA trusts it.
    public let selfSignedCertificatePath: String
    /// The key of ``selfSignedCertificatePath`` (PEM).
    public let selfSignedKeyPath: String
    /// A client certificate (CN `alice`) signed by the test CA (PEM).
    public let clientCertificatePath: String
    /// The key of ``clientCertificatePath`` (PEM).
    public let clientKeyPath: String
    /// ``clientCertificatePath`` with its key and the CA, as a modern PKCS#12 file (AES-256-CBC,
    /// PBKDF2: OpenSSL 3's default), protected by ``p12Password``.
    public let clientP12Path: String
    /// The same certificate and key made with `openssl pkcs12 -export -legacy` (RC2-40 and
    /// 3DES): OpenSSL 3 reads it only with the legacy provider loaded. Password ``p12Password``.
    public let legacyClientP12Path: String
    /// A PKCS#12 file with the client certificate and no private key (`-nokeys`). Password
    /// ``p12Password``.
    public let certificateOnlyP12Path: String
    /// A second CA (PEM) that nginx does not trust.
    public let otherCACertificatePath: String
    /// A client certificate and key signed by ``otherCACertificatePath`` as PKCS#12 (modern,
    /// ``p12Password``): a TLS server that trusts only the test CA refuses it.
    public let otherCAClientP12Path: String
    /// The password of every PKCS#12 file here.
    public let p12Password: String

    /// Makes a new PKI in `directory` (created when missing). Takes about a second.
    public static func create(in directory: String) throws -> TestPKI {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory + "/" + name }
        let pki = TestPKI(
            directory: directory,
            caCertificatePath: path("ca.pem"), caKeyPath: path("ca.key"),
            serverCertificatePath: path("server.pem"), serverKeyPath: path("server.key"),
            selfSignedCertificatePath: path("self-signed.pem"), selfSignedKeyPath: path("self-signed.key"),
            clientCertificatePath: path("client.pem"), clientKeyPath: path("client.key"),
            clientP12Path: path("client.p12"), legacyClientP12Path: path("client-legacy.p12"),
            certificateOnlyP12Path: path("client-certificate-only.p12"),
            otherCACertificatePath: path("other-ca.pem"), otherCAClientP12Path: path("other-ca-client.p12"),
            p12Password: "portal-auth-p12")
        let config = path("openssl.cnf")
        try Self.opensslConfig.write(toFile: config, atomically: true, encoding: .utf8)

        // CAs.
        try openssl([
            "req", "-x509", "-config", config, "-extensions", "ca", "-newkey", "rsa:2048", "-nodes",
            "-keyout", pki.caKeyPath, "-out", pki.caCertificatePath, "-days", "3650",
            "-subj", "/O=portal-auth tests/CN=portal-auth test CA",
        ])
        let otherCAKey = path("other-ca.key")
        try openssl([
            "req", "-x509", "-config", config, "-extensions", "ca", "-newkey", "rsa:2048", "-nodes",
            "-keyout", otherCAKey, "-out", pki.otherCACertificatePath, "-days", "3650",
            "-subj", "/O=portal-auth tests/CN=portal-auth other CA",
        ])
        // The CA-signed server certificate.
        try signed(
            config: config, extensions: "server", subject: "/O=portal-auth tests/CN=localhost",
            key: pki.serverKeyPath, certificate: pki.serverCertificatePath,
            caCertificate: pki.caCertificatePath, caKey: pki.caKeyPath)
        // The self-signed server certificate.
        try makeSelfSigned(
            certificatePath: pki.selfSignedCertificatePath, keyPath: pki.selfSignedKeyPath,
            in: directory)
        // Client certificates.
        try signed(
            config: config, extensions: "client", subject: "/O=portal-auth tests/CN=alice",
            key: pki.clientKeyPath, certificate: pki.clientCertificatePath,
            caCertificate: pki.caCertificatePath, caKey: pki.caKeyPath)
        let otherKey = path("other-ca-client.key"), otherCertificate = path("other-ca-client.pem")
        try signed(
            config: config, extensions: "client", subject: "/O=portal-auth tests/CN=mallory",
            key: otherKey, certificate: otherCertificate,
            caCertificate: pki.otherCACertificatePath, caKey: otherCAKey)
        // PKCS#12: the password travels in the environment, not in argv.
        let env = Subprocess.environment(["PORTAL_AUTH_P12_PASSWORD": pki.p12Password])
        let out = ["-passout", "env:PORTAL_AUTH_P12_PASSWORD"]
        try openssl(
            [
                "pkcs12", "-export", "-name", "portal-auth test client", "-inkey", pki.clientKeyPath,
                "-in", pki.clientCertificatePath, "-certfile", pki.caCertificatePath,
                "-out", pki.clientP12Path,
            ] + out, environment: env)
        try openssl(
            [
                "pkcs12", "-export", "-legacy", "-name", "portal-auth test client (legacy)",
                "-inkey", pki.clientKeyPath, "-in", pki.clientCertificatePath,
                "-certfile", pki.caCertificatePath, "-out", pki.legacyClientP12Path,
            ] + out, environment: env)
        try openssl(
            [
                "pkcs12", "-export", "-nokeys", "-name", "portal-auth test client (no key)",
                "-in", pki.clientCertificatePath, "-out", pki.certificateOnlyP12Path,
            ] + out, environment: env)
        try openssl(
            [
                "pkcs12", "-export", "-name", "portal-auth other-CA client", "-inkey", otherKey,
                "-in", otherCertificate, "-certfile", pki.otherCACertificatePath,
                "-out", pki.otherCAClientP12Path,
            ] + out, environment: env)
        return pki
    }

    /// Makes a new self-signed server certificate for `localhost` and 127.0.0.1 with a new
    /// RSA key at the given paths (files are written beside them, then renamed into place).
    public static func makeSelfSigned(certificatePath: String, keyPath: String, in directory: String) throws {
        let config = directory + "/openssl.cnf"
        if !FileManager.default.fileExists(atPath: config) {
            try opensslConfig.write(toFile: config, atomically: true, encoding: .utf8)
        }
        let suffix = ".new-\(UUID().uuidString)"
        try openssl([
            "req", "-x509", "-config", config, "-extensions", "self_signed", "-newkey", "rsa:2048",
            "-nodes", "-keyout", keyPath + suffix, "-out", certificatePath + suffix, "-days", "825",
            "-subj", "/O=portal-auth tests/CN=localhost",
        ])
        try rename(keyPath + suffix, keyPath)
        try rename(certificatePath + suffix, certificatePath)
    }

    /// The SHA-256 fingerprint of a PEM certificate as `openssl x509 -fingerprint -sha256 -noout`
    /// prints it: uppercase hex pairs separated by colons (`AA:BB:...`).
    public static func fingerprint(ofCertificateAt path: String) throws -> String {
        let output = try openssl(["x509", "-in", path, "-noout", "-fingerprint", "-sha256"])
        return try parseFingerprint(output)
    }

    /// The public-key pin of a PEM certificate as curl's `--pinnedpubkey` takes it:
    /// `sha256//` + base64 of the SHA-256 of the DER SubjectPublicKeyInfo.
    public static func publicKeyPin(ofCertificateAt path: String) throws -> String {
        let result = try Subprocess.runBlocking(
            "/bin/sh",
            [
                "-c",
                "openssl x509 -in \"$1\" -noout -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
                "sh", path,
            ],
            stdin: nil, environment: ProcessInfo.processInfo.environment, timeout: 30)
        let pin = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, pin.count == 44 else {
            throw WebTierError("public key pin of \(path) failed: \(result.stderr)")
        }
        return "sha256//" + pin
    }

    static func parseFingerprint(_ output: String) throws -> String {
        guard let equals = output.firstIndex(of: "=") else { throw WebTierError("no fingerprint in \(output)") }
        return output[output.index(after: equals)...].trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
    }

    private static func signed(
        config: String, extensions: String, subject: String, key: String, certificate: String,
        caCertificate: String, caKey: String
    ) throws {
        let request = certificate + ".csr"
        try openssl([
            "req", "-new", "-config", config, "-newkey", "rsa:2048", "-nodes", "-keyout", key,
            "-out", request, "-subj", subject,
        ])
        try openssl([
            "x509", "-req", "-in", request, "-CA", caCertificate, "-CAkey", caKey, "-set_serial",
            "0x" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(30),
            "-days", "825", "-extfile", config, "-extensions", extensions, "-out", certificate,
        ])
        try? FileManager.default.removeItem(atPath: request)
    }

    @discardableResult
    static func openssl(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let result = try Subprocess.runBlocking(
            "openssl", arguments, stdin: nil,
            environment: environment ?? ProcessInfo.processInfo.environment, timeout: 60)
        guard result.status == 0 else {
            throw WebTierError(
                "openssl \(arguments.prefix(2).joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    private static func rename(_ from: String, _ to: String) throws {
        guard Foundation.rename(from, to) == 0 else {
            throw WebTierError("rename \(from): \(String(cString: strerror(errno)))")
        }
    }

    /// The extensions of every certificate made here.
    static let opensslConfig = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = unused
        [ca]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        [server]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature, keyEncipherment
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid
        [self_signed]
        keyUsage = critical, digitalSignature, keyEncipherment
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        subjectKeyIdentifier = hash
        [client]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature, keyEncipherment
        extendedKeyUsage = clientAuth
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """
}
