import CPortalAuth
public import Foundation
import Synchronization

// Real servers on loopback for the network-credential tests (issue #5): nginx (self-signed
// server, client certificates, Basic), Apache httpd (Digest, Negotiate through
// mod_auth_gssapi) and an MIT Kerberos KDC, all from Debian packages (scripts/setup.sh), all
// started by the tests themselves in a private temporary directory.

/// Errors of the web tier: what failed, with the tail of the server's log when there is one.
public typealias WebTierError = SubprocessError

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

// MARK: - The web tier

/// nginx, Apache httpd and an MIT Kerberos KDC on 127.0.0.1, started once per test process by
/// ``shared()`` and killed when the test process ends (however it ends: a watchdog child reads
/// a pipe only this process holds, and kills the servers' process groups and removes
/// ``directory`` when that pipe closes).
///
/// Every server block answers `GET /data.json` with `{"served":"NAME"}` and
/// `GET /arcgis/rest/info` with `{"currentVersion":11.3,"served":"NAME"}`, where NAME names the
/// block: `self-signed`, `rotating`, `client-certificate`, `basic`, `basic-plain`, `digest`,
/// `negotiate`. URLs are base URLs without a trailing slash (append a path component).
///
/// Hosts: every nginx block and the Digest block are at `127.0.0.1` (the certificates name both
/// `localhost` and IP 127.0.0.1); ``negotiateURL`` uses `localhost`, because the service
/// principal is `HTTP/localhost@REALM` and a client derives the principal from the URL's host.
/// Servers listen on 127.0.0.1 only, with ports picked free at start.
public final class WebTier: Sendable {
    // Files.
    /// The private temporary directory that holds every file and log of the tier.
    public let directory: String
    /// The certificates and PKCS#12 files.
    public let pki: TestPKI
    /// The test CA (PEM): pass it as the CA bundle to trust every https block but the
    /// self-signed ones.
    public var caBundlePath: String { pki.caCertificatePath }

    // Users.
    /// The one user of every password block and the Kerberos client principal's name.
    public let userName = "alice"
    /// Basic's password (nginx `auth_basic`, htpasswd file).
    public let basicPassword = "basic-wonderland"
    /// Basic's realm, as nginx sends it in `WWW-Authenticate: Basic realm="..."`.
    public let basicRealm = "portal-auth basic"
    /// Digest's password (Apache mod_auth_digest, htdigest file).
    public let digestPassword = "digest-wonderland"
    /// Digest's realm (`AuthName`), part of the htdigest hash.
    public let digestRealm = "portal-auth digest"
    /// The Kerberos realm of the private KDC.
    public let kerberosRealm = "PORTAL-AUTH.TEST"
    /// The Kerberos password of ``kerberosPrincipal``.
    public let kerberosPassword = "kerberos-wonderland"
    /// `alice@PORTAL-AUTH.TEST`.
    public var kerberosPrincipal: String { "\(userName)@\(kerberosRealm)" }
    /// The service principal of ``negotiateURL``'s server: `HTTP/localhost@PORTAL-AUTH.TEST`.
    public var servicePrincipal: String { "HTTP/localhost@\(kerberosRealm)" }

    // nginx.
    /// https, self-signed certificate (``selfSignedFingerprint``), no authentication. Never
    /// rotated, so tests may run against it in parallel.
    public let selfSignedURL: URL
    /// The SHA-256 fingerprint (`AA:BB:...`) of the certificate ``selfSignedURL`` serves.
    public let selfSignedFingerprint: String
    /// curl's `--pinnedpubkey` form (`sha256//BASE64`) of ``selfSignedURL``'s public key.
    public let selfSignedPublicKeyPin: String
    /// https, another self-signed certificate that ``rotateSelfSignedCertificate()`` replaces with
    /// a new key on the same port: for "the trusted server's key changed" tests. Only tests that
    /// can bear a rotation at any moment should use it (one test, or a serialized suite).
    public let rotatingSelfSignedURL: URL
    /// https with the CA-signed certificate and `ssl_verify_client on` against the test CA:
    /// without a client certificate of that CA nginx answers 400.
    public let clientCertificateURL: URL
    /// https with the CA-signed certificate and `auth_basic` (``userName`` / ``basicPassword``).
    public let basicURL: URL
    /// Plain http with the same `auth_basic`: a client must refuse to send Basic here.
    public let basicPlainURL: URL
    /// The error log of nginx.
    public let nginxErrorLogPath: String

    // Apache.
    /// https (CA-signed) with mod_auth_digest (``userName`` / ``digestPassword``, realm
    /// ``digestRealm``, MD5, qop auth).
    public let digestURL: URL
    /// https (CA-signed) at `https://localhost:PORT` with mod_auth_gssapi: `AuthType GSSAPI`,
    /// mechanism krb5 (through SPNEGO), no Basic fallback. A client needs a ticket for
    /// ``kerberosPrincipal`` (``kinit(user:password:credentialCache:)``) and
    /// ``kerberosEnvironment``.
    public let negotiateURL: URL
    /// The error log of Apache.
    public let apacheErrorLogPath: String

    // Kerberos.
    /// The KDC's port on 127.0.0.1 (TCP and UDP).
    public let kdcPort: Int
    /// The `krb5.conf` every Kerberos client of the tier must use (KRB5_CONFIG).
    public let krb5ConfigPath: String
    /// The default credential cache (`FILE:` path) of ``kerberosEnvironment``.
    public let credentialCache: String
    /// `KRB5_CONFIG` and `KRB5CCNAME` (the default credential cache) for client processes.
    public var kerberosEnvironment: [String: String] { kerberosEnvironment(credentialCache: credentialCache) }
    /// The KDC's log.
    public let kdcLogPath: String

    /// How long the start took, in seconds.
    public let startupSeconds: TimeInterval

    private let nginxPid: Int32
    private let rotating: Mutex<(certificate: String, key: String, fingerprint: String)>
    /// Held through every change of nginx's configuration and its reload; the proxy blocks added.
    private let reloads = Mutex<[String]>([])
    private let watchdog: Watchdog

    // MARK: Shared instance

    private static let sharedTask = Mutex<Task<WebTier, any Error>?>(nil)

    /// The tier of this test process: started on first call (a few seconds), the same instance
    /// afterwards. A failed start is not retried: every caller gets the same error.
    public static func shared() async throws -> WebTier {
        let task = sharedTask.withLock { task in
            if let task { return task }
            let new = Task { try await start() }
            task = new
            return new
        }
        return try await task.value
    }

    /// Starts a new, private tier (its own directory, ports and processes). Most tests want
    /// ``shared()``.
    public static func start() async throws -> WebTier {
        try await withCheckedThrowingContinuation { continuation in
            // Blocking work (openssl, kdb5_util, waiting for ports) stays off Swift's pool.
            let thread = Thread { continuation.resume(with: Result { try WebTier(starting: ()) }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    // MARK: Kerberos helpers

    /// A new, empty credential cache path (`FILE:...`) in the tier's directory, for a test that
    /// must not share tickets with others.
    public func newCredentialCache() -> String {
        "FILE:\(directory)/krb5/ccache-\(UUID().uuidString)"
    }

    /// `KRB5_CONFIG` and `KRB5CCNAME` = `credentialCache` (plus `KRB5RCACHETYPE=none`).
    public func kerberosEnvironment(credentialCache: String) -> [String: String] {
        ["KRB5_CONFIG": krb5ConfigPath, "KRB5CCNAME": credentialCache, "KRB5RCACHETYPE": "none"]
    }

    /// Gets a ticket-granting ticket with `kinit`, the password on its standard input (never in
    /// argv), into `credentialCache` (nil: ``credentialCache``).
    public func kinit(user: String = "alice", password: String? = nil, credentialCache: String? = nil) throws {
        let principal = user.contains("@") ? user : "\(user)@\(kerberosRealm)"
        let env = Subprocess.environment(kerberosEnvironment(credentialCache: credentialCache ?? self.credentialCache))
        let result = try Subprocess.runBlocking(
            "kinit", [principal], stdin: (password ?? kerberosPassword) + "\n",
            environment: env, timeout: 30)
        guard result.status == 0 else {
            throw WebTierError(
                "kinit \(principal) failed (\(result.status)): \(result.stderr)\(result.stdout)\n--- \(kdcLogPath):\n\(tail(kdcLogPath))"
            )
        }
    }

    /// Destroys the tickets of `credentialCache` (nil: ``credentialCache``); no error when empty.
    public func kdestroy(credentialCache: String? = nil) throws {
        let env = Subprocess.environment(kerberosEnvironment(credentialCache: credentialCache ?? self.credentialCache))
        let result = try Subprocess.runBlocking("kdestroy", ["-q"], stdin: nil, environment: env, timeout: 30)
        guard result.status == 0 || result.stderr.contains("No credentials cache found") else {
            throw WebTierError("kdestroy failed (\(result.status)): \(result.stderr)")
        }
    }

    // MARK: Rotation

    /// The SHA-256 fingerprint (`AA:BB:...`) of the certificate ``rotatingSelfSignedURL``
    /// serves now.
    public var rotatingSelfSignedFingerprint: String { rotating.withLock { $0.fingerprint } }

    /// The PEM file of the certificate ``rotatingSelfSignedURL`` serves now.
    public var rotatingSelfSignedCertificatePath: String { rotating.withLock { $0.certificate } }

    /// Replaces ``rotatingSelfSignedURL``'s certificate with a new self-signed one (new RSA key,
    /// same names), reloads nginx and returns once the new certificate is served; returns its
    /// fingerprint. The previous certificate file stays where it was (a new path each time).
    @discardableResult
    public func rotateSelfSignedCertificate() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try self.rotateBlocking() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func rotateBlocking() throws -> String {
        try reloads.withLock { _ in try rotateLocked() }
    }

    private func rotateLocked() throws -> String {
        // nginx reads the fixed paths `rotating.pem`/`rotating.key` at reload; copies of each
        // generation are kept for tests that want the old and the new certificate.
        let live = (certificate: "\(directory)/nginx/rotating.pem", key: "\(directory)/nginx/rotating.key")
        try TestPKI.makeSelfSigned(certificatePath: live.certificate, keyPath: live.key, in: pki.directory)
        let fingerprint = try TestPKI.fingerprint(ofCertificateAt: live.certificate)
        let generation = "\(directory)/nginx/rotating-\(UUID().uuidString).pem"
        try FileManager.default.copyItem(atPath: live.certificate, toPath: generation)
        guard kill(nginxPid, SIGHUP) == 0 else { throw WebTierError("nginx is gone\n\(tail(nginxErrorLogPath))") }
        let port = rotatingSelfSignedURL.port!
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? Self.servedFingerprint(port: port)) == fingerprint {
                rotating.withLock { $0 = (generation, live.key, fingerprint) }
                return fingerprint
            }
            usleep(100_000)
        }
        throw WebTierError(
            "nginx did not serve the rotated certificate within 20 s\n--- \(nginxErrorLogPath):\n\(tail(nginxErrorLogPath))"
        )
    }

    /// The SHA-256 fingerprint of the certificate served on 127.0.0.1:`port` (SNI `localhost`).
    public static func servedFingerprint(port: Int) throws -> String {
        let result = try Subprocess.runBlocking(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:$1 -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256",
                "sh", String(port),
            ],
            stdin: nil, environment: ProcessInfo.processInfo.environment, timeout: 20)
        guard result.status == 0 else { throw WebTierError("no certificate on port \(port): \(result.stderr)") }
        return try TestPKI.parseFingerprint(result.stdout)
    }

    // MARK: Proxies

    /// What a proxy block of ``addProxy(to:front:)`` asks of a client before it forwards.
    public enum ProxyFront: String, Sendable, CaseIterable {
        /// https with the CA-signed certificate, no authentication.
        case open
        /// https with the self-signed certificate of ``selfSignedURL`` (``selfSignedFingerprint``).
        case selfSigned = "self-signed"
        /// https with the CA-signed certificate; a client certificate of the test CA is required.
        case clientCertificate = "client-certificate"
        /// https with the CA-signed certificate and Basic (``userName`` / ``basicPassword``).
        case basic
    }

    /// Adds an nginx block on a new port that forwards everything to `backend` (for instance the
    /// portal emulator's base URL) behind `front`, reloads nginx and returns the block's base URL
    /// (`https://127.0.0.1:PORT`) once it accepts connections. nginx passes the request URI
    /// unchanged (a path in `backend` replaces the leading `/`, as `proxy_pass` does), sets `Host`
    /// to the client's and `X-Forwarded-Proto`/`-Host`/`-For`, does not verify the backend's
    /// certificate, forwards the client's `Authorization` header, and adds
    /// `X-Served-By: proxy-FRONT` to every response. Blocks stay until the tier ends.
    public func addProxy(to backend: URL, front: ProxyFront = .basic) async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try self.addProxyBlocking(to: backend, front: front) })
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func addProxyBlocking(to backend: URL, front: ProxyFront) throws -> URL {
        try reloads.withLock { blocks in
            let port = try freePorts(1)[0]
            let tls =
                front == .selfSigned
                ? (pki.selfSignedCertificatePath, pki.selfSignedKeyPath)
                : (pki.serverCertificatePath, pki.serverKeyPath)
            var lines = [
                "server {", "    listen 127.0.0.1:\(port) ssl;", "    server_name localhost 127.0.0.1;",
                "    ssl_certificate \(tls.0);", "    ssl_certificate_key \(tls.1);",
            ]
            switch front {
            case .open, .selfSigned: break
            case .clientCertificate:
                lines += ["    ssl_client_certificate \(pki.caCertificatePath);", "    ssl_verify_client on;"]
            case .basic:
                lines += ["    auth_basic \"\(basicRealm)\";", "    auth_basic_user_file \(directory)/nginx/htpasswd;"]
            }
            var target = backend.absoluteString
            if backend.path.isEmpty || backend.path == "/" { while target.hasSuffix("/") { target.removeLast() } }
            lines += [
                "    location / {", "        proxy_pass \(target);", "        proxy_http_version 1.1;",
                "        proxy_buffering off;", "        proxy_set_header Host $http_host;",
                "        proxy_set_header X-Forwarded-Proto https;",
                "        proxy_set_header X-Forwarded-Host $http_host;",
                "        proxy_set_header X-Forwarded-For $remote_addr;",
                "        add_header X-Served-By \"proxy-\(front.rawValue)\" always;", "    }", "}", "",
            ]
            let updated = blocks + [lines.joined(separator: "\n")]
            try updated.joined(separator: "\n").write(
                toFile: "\(directory)/nginx/proxies.conf", atomically: true, encoding: .utf8)
            chmod("\(directory)/nginx/proxies.conf", 0o644)
            guard kill(nginxPid, SIGHUP) == 0 else { throw WebTierError("nginx is gone\n\(tail(nginxErrorLogPath))") }
            let deadline = Date().addingTimeInterval(20)
            while !canConnect(port: port) {
                if Date() > deadline {
                    throw WebTierError(
                        "nginx did not open proxy port \(port) within 20 s\n--- \(nginxErrorLogPath):\n\(tail(nginxErrorLogPath))"
                    )
                }
                usleep(50_000)
            }
            blocks = updated
            return URL(string: "https://127.0.0.1:\(port)")!
        }
    }

    // MARK: Start

    private init(starting: Void) throws {
        let began = Date()
        let isRoot = geteuid() == 0
        var template = Array("\(NSTemporaryDirectory())/portal-auth-webtier-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw WebTierError("mkdtemp: \(String(cString: strerror(errno)))") }
        let dir = URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
        directory = dir
        // As root the servers' workers run as nobody: they must reach the documents, password
        // files and keytab (this is a throwaway directory of test secrets).
        if isRoot { chmod(dir, 0o755) }
        watchdog = try Watchdog(directory: dir)
        let fm = FileManager.default
        for sub in ["pki", "www", "nginx", "nginx/tmp", "apache", "apache/run", "krb5"] {
            try fm.createDirectory(
                atPath: "\(dir)/\(sub)", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
        }
        // Private keys stay 0600: nginx's and Apache's parents read them before dropping to nobody.
        pki = try TestPKI.create(in: "\(dir)/pki")

        let ports = try freePorts(8)
        let p = (
            selfSigned: ports[0], rotating: ports[1], clientCertificate: ports[2], basic: ports[3],
            basicPlain: ports[4], digest: ports[5], negotiate: ports[6], kdc: ports[7]
        )
        selfSignedURL = URL(string: "https://127.0.0.1:\(p.selfSigned)")!
        rotatingSelfSignedURL = URL(string: "https://127.0.0.1:\(p.rotating)")!
        clientCertificateURL = URL(string: "https://127.0.0.1:\(p.clientCertificate)")!
        basicURL = URL(string: "https://127.0.0.1:\(p.basic)")!
        basicPlainURL = URL(string: "http://127.0.0.1:\(p.basicPlain)")!
        digestURL = URL(string: "https://127.0.0.1:\(p.digest)")!
        negotiateURL = URL(string: "https://localhost:\(p.negotiate)")!
        kdcPort = p.kdc

        // Documents.
        for name in ["self-signed", "rotating", "client-certificate", "basic", "basic-plain", "digest", "negotiate"] {
            try fm.createDirectory(
                atPath: "\(dir)/www/\(name)/arcgis/rest", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            try #"{"served":"\#(name)"}"#.write(
                toFile: "\(dir)/www/\(name)/data.json", atomically: false, encoding: .utf8)
            try #"{"currentVersion":11.3,"served":"\#(name)"}"#.write(
                toFile: "\(dir)/www/\(name)/arcgis/rest/info",
                atomically: false, encoding: .utf8)
        }

        // Self-signed certificates.
        selfSignedFingerprint = try TestPKI.fingerprint(ofCertificateAt: pki.selfSignedCertificatePath)
        selfSignedPublicKeyPin = try TestPKI.publicKeyPin(ofCertificateAt: pki.selfSignedCertificatePath)
        let rotatingCertificate = "\(dir)/nginx/rotating.pem", rotatingKey = "\(dir)/nginx/rotating.key"
        try TestPKI.makeSelfSigned(certificatePath: rotatingCertificate, keyPath: rotatingKey, in: pki.directory)
        let firstGeneration = "\(dir)/nginx/rotating-\(UUID().uuidString).pem"
        try fm.copyItem(atPath: rotatingCertificate, toPath: firstGeneration)
        rotating = Mutex((firstGeneration, rotatingKey, try TestPKI.fingerprint(ofCertificateAt: rotatingCertificate)))

        // Password files (mode 0644: the workers read them per request).
        let htpasswd = "\(dir)/nginx/htpasswd"
        let made1 = try Subprocess.runBlocking(
            "htpasswd", ["-i", "-c", htpasswd, userName], stdin: basicPassword,
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        guard made1.status == 0 else { throw WebTierError("htpasswd failed: \(made1.stderr)") }
        let digestHash = try Subprocess.runBlocking(
            "openssl", ["md5", "-r"], stdin: "\(userName):\(digestRealm):\(digestPassword)",
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        guard digestHash.status == 0, let hash = digestHash.stdout.split(separator: " ").first, hash.count == 32 else {
            throw WebTierError("openssl md5 failed: \(digestHash.stderr)")
        }
        let htdigest = "\(dir)/apache/htdigest"
        try "\(userName):\(digestRealm):\(hash)\n".write(toFile: htdigest, atomically: false, encoding: .utf8)
        chmod(htpasswd, 0o644); chmod(htdigest, 0o644)

        // Kerberos: configuration, database, principals, keytab, KDC.
        let krb = "\(dir)/krb5"
        krb5ConfigPath = "\(krb)/krb5.conf"
        credentialCache = "FILE:\(krb)/ccache"
        kdcLogPath = "\(krb)/kdc.log"
        let kdcProfile = "\(krb)/kdc.conf"
        let keytab = "\(krb)/http.keytab"
        try Self.krb5Conf(realm: kerberosRealm, kdcPort: p.kdc, directory: krb)
            .write(toFile: krb5ConfigPath, atomically: false, encoding: .utf8)
        try Self.kdcConf(realm: kerberosRealm, kdcPort: p.kdc, directory: krb)
            .write(toFile: kdcProfile, atomically: false, encoding: .utf8)
        try "*/admin@\(kerberosRealm) *\n".write(toFile: "\(krb)/kadm5.acl", atomically: false, encoding: .utf8)
        chmod(krb5ConfigPath, 0o644)
        let krbEnv = Subprocess.environment([
            "KRB5_CONFIG": krb5ConfigPath, "KRB5_KDC_PROFILE": kdcProfile,
            "KRB5CCNAME": credentialCache, "KRB5RCACHETYPE": "none",
        ])
        let masterPassword = "master-\(UUID().uuidString)"
        let created = try Subprocess.runBlocking(
            "kdb5_util", ["-r", kerberosRealm, "create", "-s", "-P", masterPassword],
            stdin: nil, environment: krbEnv, timeout: 60)
        guard created.status == 0 else {
            throw WebTierError("kdb5_util create failed: \(created.stderr)\(created.stdout)")
        }
        let kadmin = try Subprocess.runBlocking(
            "kadmin.local", ["-r", kerberosRealm],
            stdin: """
                addprinc -pw \(kerberosPassword) \(userName)@\(kerberosRealm)
                addprinc -randkey HTTP/localhost@\(kerberosRealm)
                ktadd -k \(keytab) HTTP/localhost@\(kerberosRealm)

                """,
            environment: krbEnv, timeout: 60)
        guard kadmin.status == 0, FileManager.default.fileExists(atPath: keytab) else {
            throw WebTierError("kadmin.local failed: \(kadmin.stderr)\(kadmin.stdout)")
        }
        chmod(keytab, isRoot ? 0o644 : 0o600)
        let kdc = try Self.spawnServer(
            "krb5kdc", ["-n", "-r", kerberosRealm, "-P", "\(krb)/krb5kdc.pid"],
            environment: krbEnv, log: "\(krb)/krb5kdc.out", watchdog: watchdog)

        // nginx.
        nginxErrorLogPath = "\(dir)/nginx/error.log"
        let nginxConf = "\(dir)/nginx/nginx.conf"
        try "".write(toFile: "\(dir)/nginx/proxies.conf", atomically: false, encoding: .utf8)
        try Self.nginxConf(directory: dir, pki: pki, ports: p, isRoot: isRoot, basicRealm: basicRealm)
            .write(toFile: nginxConf, atomically: false, encoding: .utf8)
        nginxPid = try Self.spawnServer(
            "nginx", ["-p", "\(dir)/nginx", "-c", nginxConf, "-e", nginxErrorLogPath],
            environment: ProcessInfo.processInfo.environment, log: "\(dir)/nginx/nginx.out", watchdog: watchdog)

        // Apache.
        apacheErrorLogPath = "\(dir)/apache/error.log"
        let apacheConf = "\(dir)/apache/httpd.conf"
        try Self.apacheConf(
            directory: dir, pki: pki, digestPort: p.digest, negotiatePort: p.negotiate, isRoot: isRoot,
            digestRealm: digestRealm, htdigest: htdigest, keytab: keytab
        )
        .write(toFile: apacheConf, atomically: false, encoding: .utf8)
        let apache = try Self.spawnServer(
            "apache2", ["-d", "\(dir)/apache", "-f", apacheConf, "-DFOREGROUND"],
            environment: krbEnv, log: "\(dir)/apache/apache.out", watchdog: watchdog)

        // Ready when every port accepts connections.
        try Self.waitUntilListening(
            pid: kdc, ports: [p.kdc], name: "krb5kdc", logs: [kdcLogPath, "\(krb)/krb5kdc.out"])
        try Self.waitUntilListening(
            pid: nginxPid,
            ports: [p.selfSigned, p.rotating, p.clientCertificate, p.basic, p.basicPlain],
            name: "nginx", logs: [nginxErrorLogPath, "\(dir)/nginx/nginx.out"])
        try Self.waitUntilListening(
            pid: apache, ports: [p.digest, p.negotiate], name: "apache2",
            logs: [apacheErrorLogPath, "\(dir)/apache/apache.out"])
        startupSeconds = Date().timeIntervalSince(began)
    }

    /// Starts a server in its own process group, output to `log`, and hands it to the watchdog.
    private static func spawnServer(
        _ executable: String, _ arguments: [String], environment: [String: String],
        log: String, watchdog: Watchdog
    ) throws -> Int32 {
        let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { if fd >= 0 { close(fd) } }
        let pid = try Subprocess.spawn(
            executable, arguments, environment: environment, stdout: fd, stderr: fd, newGroup: true)
        watchdog.track(pid)
        return pid
    }

    private static func waitUntilListening(pid: Int32, ports: [Int], name: String, logs: [String]) throws {
        let deadline = Date().addingTimeInterval(20)
        var pending = ports
        while true {
            pending.removeAll { canConnect(port: $0) }
            if pending.isEmpty { return }
            var code: Int32 = 0
            if pa_wait(pid, 1, &code) == pid {
                throw WebTierError(
                    "\(name) exited with status \(code) during start\n"
                        + logs.map { "--- \($0):\n\(tail($0))" }.joined(separator: "\n"))
            }
            if Date() > deadline {
                throw WebTierError(
                    "\(name) does not accept connections on port(s) \(pending) after 20 s\n"
                        + logs.map { "--- \($0):\n\(tail($0))" }.joined(separator: "\n"))
            }
            usleep(50_000)
        }
    }

    // MARK: Configuration files

    static func krb5Conf(realm: String, kdcPort: Int, directory: String) -> String {
        """
        [libdefaults]
            default_realm = \(realm)
            dns_lookup_kdc = false
            dns_lookup_realm = false
            dns_canonicalize_hostname = false
            rdns = false
            udp_preference_limit = 1
            default_ccache_name = FILE:\(directory)/ccache
            forwardable = false
            ticket_lifetime = 10h

        [realms]
            \(realm) = {
                kdc = 127.0.0.1:\(kdcPort)
            }

        [domain_realm]
            localhost = \(realm)
            .localhost = \(realm)

        """
    }

    static func kdcConf(realm: String, kdcPort: Int, directory: String) -> String {
        """
        [kdcdefaults]
            kdc_listen = 127.0.0.1:\(kdcPort)
            kdc_tcp_listen = 127.0.0.1:\(kdcPort)

        [realms]
            \(realm) = {
                database_name = \(directory)/principal
                key_stash_file = \(directory)/stash
                acl_file = \(directory)/kadm5.acl
                max_life = 10h
                max_renewable_life = 0
                supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
            }

        [logging]
            kdc = FILE:\(directory)/kdc.log
            admin_server = FILE:\(directory)/kadmin.log
            default = FILE:\(directory)/krb5lib.log

        """
    }

    static func nginxConf(
        directory dir: String, pki: TestPKI,
        ports p: (
            selfSigned: Int, rotating: Int, clientCertificate: Int, basic: Int, basicPlain: Int,
            digest: Int, negotiate: Int, kdc: Int
        ),
        isRoot: Bool, basicRealm: String
    ) -> String {
        func block(_ name: String, port: Int, tls: (certificate: String, key: String)?, extra: String = "") -> String {
            var lines = [
                "    server {",
                "        listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl");",
                "        server_name localhost 127.0.0.1;",
                "        root \(dir)/www/\(name);",
            ]
            if let tls {
                lines += ["        ssl_certificate \(tls.certificate);", "        ssl_certificate_key \(tls.key);"]
            }
            lines += extra.split(separator: "\n").map { "        " + $0 }
            lines += ["        location / { try_files $uri =404; }", "    }", ""]
            return lines.joined(separator: "\n")
        }
        let caSigned = (certificate: pki.serverCertificatePath, key: pki.serverKeyPath)
        let basic = "auth_basic \"\(basicRealm)\";\nauth_basic_user_file \(dir)/nginx/htpasswd;"
        let blocks = [
            block("self-signed", port: p.selfSigned, tls: (pki.selfSignedCertificatePath, pki.selfSignedKeyPath)),
            block("rotating", port: p.rotating, tls: ("\(dir)/nginx/rotating.pem", "\(dir)/nginx/rotating.key")),
            block(
                "client-certificate", port: p.clientCertificate, tls: caSigned,
                extra: "ssl_client_certificate \(pki.caCertificatePath);\nssl_verify_client on;\nssl_verify_depth 2;"),
            block("basic", port: p.basic, tls: caSigned, extra: basic),
            block("basic-plain", port: p.basicPlain, tls: nil, extra: basic),
        ].joined(separator: "\n")
        return """
            daemon off;
            master_process on;
            worker_processes 1;
            \(isRoot ? "user nobody nogroup;" : "")
            pid \(dir)/nginx/nginx.pid;
            error_log \(dir)/nginx/error.log info;
            events { worker_connections 256; }
            http {
                access_log \(dir)/nginx/access.log;
                client_body_temp_path \(dir)/nginx/tmp/body;
                proxy_temp_path \(dir)/nginx/tmp/proxy;
                fastcgi_temp_path \(dir)/nginx/tmp/fastcgi;
                uwsgi_temp_path \(dir)/nginx/tmp/uwsgi;
                scgi_temp_path \(dir)/nginx/tmp/scgi;
                types { application/json json; }
                default_type application/json;
                ssl_protocols TLSv1.2 TLSv1.3;
                keepalive_timeout 5;

            \(blocks)
                include \(dir)/nginx/proxies.conf;
            }

            """
    }

    static func apacheConf(
        directory dir: String, pki: TestPKI, digestPort: Int, negotiatePort: Int, isRoot: Bool,
        digestRealm: String, htdigest: String, keytab: String
    ) -> String {
        let modules = "/usr/lib/apache2/modules"
        let load = [
            "mpm_event", "authn_core", "authn_file", "authz_core", "authz_user", "auth_digest", "auth_gssapi", "ssl",
        ]
        .map { "LoadModule \($0)_module \(modules)/mod_\($0).so" }.joined(separator: "\n")
        return """
            ServerRoot "\(dir)/apache"
            ServerName localhost
            \(load)
            \(isRoot ? "User nobody\nGroup nogroup" : "")
            PidFile \(dir)/apache/httpd.pid
            DefaultRuntimeDir \(dir)/apache/run
            ErrorLog \(dir)/apache/error.log
            LogLevel info
            StartServers 1
            ServerLimit 1
            ThreadsPerChild 16
            MaxRequestWorkers 16
            MinSpareThreads 1
            MaxSpareThreads 16
            KeepAliveTimeout 5
            SSLProtocol -all +TLSv1.2 +TLSv1.3
            SSLSessionCache none
            Listen 127.0.0.1:\(digestPort)
            Listen 127.0.0.1:\(negotiatePort)

            <Directory />
                AllowOverride None
            </Directory>

            <VirtualHost 127.0.0.1:\(digestPort)>
                ServerName localhost
                SSLEngine on
                SSLCertificateFile \(pki.serverCertificatePath)
                SSLCertificateKeyFile \(pki.serverKeyPath)
                DocumentRoot \(dir)/www/digest
                <Location />
                    ForceType application/json
                    AuthType Digest
                    AuthName "\(digestRealm)"
                    AuthDigestDomain /
                    AuthDigestProvider file
                    AuthUserFile \(htdigest)
                    Require valid-user
                </Location>
            </VirtualHost>

            <VirtualHost 127.0.0.1:\(negotiatePort)>
                ServerName localhost
                SSLEngine on
                SSLCertificateFile \(pki.serverCertificatePath)
                SSLCertificateKeyFile \(pki.serverKeyPath)
                DocumentRoot \(dir)/www/negotiate
                <Location />
                    ForceType application/json
                    AuthType GSSAPI
                    AuthName "portal-auth negotiate"
                    GssapiCredStore keytab:\(keytab)
                    GssapiAllowedMech krb5
                    GssapiBasicAuth Off
                    GssapiNegotiateOnce On
                    Require valid-user
                </Location>
            </VirtualHost>

            """
    }
}

// MARK: - Helpers

/// Picks `count` distinct ports on 127.0.0.1 that are free for both TCP and UDP right now.
func freePorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    var ports: [Int] = []
    var attempts = 0
    while ports.count < count {
        attempts += 1
        if attempts > 200 { throw WebTierError("no free ports on 127.0.0.1") }
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard tcp >= 0 else { throw WebTierError("socket: \(String(cString: strerror(errno)))") }
        sockets.append(tcp)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(tcp, $0, length) == 0 && getsockname(tcp, $0, &length) == 0
            }
        }
        guard bound else { continue }
        // The same number must be free for UDP (the KDC listens on both).
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard udp >= 0 else { continue }
        sockets.append(udp)
        let udpBound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(udp, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if udpBound { ports.append(Int(UInt16(bigEndian: address.sin_port))) }
    }
    return ports
}

/// True when a TCP connection to 127.0.0.1:`port` succeeds.
func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// The last `lines` lines of a file ("(missing)" when it cannot be read).
func tail(_ path: String, lines: Int = 30) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "(missing)" }
    return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
}

/// Kills the tier's servers when this process ends, however it ends: a `/bin/sh` child reads
/// process-group ids from a pipe whose write end only this process holds (close-on-exec, so
/// no other child inherits it). At end of file (this process is gone) it sends SIGTERM to each
/// group, SIGKILL a second later, and removes the directory.
final class Watchdog: Sendable {
    private let write: Int32

    init(directory: String) throws {
        let pipe = try Pipe2()
        let script = """
            groups=""
            while read -r group; do groups="$groups $group"; done
            for g in $groups; do kill -TERM "-$g" 2>/dev/null; done
            sleep 1
            for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
            rm -rf -- "$1"
            """
        do {
            // Its own process group, so a Ctrl-C to the test run does not kill it before the servers.
            _ = try Subprocess.spawn(
                "/bin/sh", ["-c", script, "portal-auth-webtier-watchdog", directory],
                environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"],
                stdin: pipe.read, newGroup: true)
        } catch {
            pipe.closeBoth()
            throw error
        }
        close(pipe.read)
        write = pipe.write
    }

    /// A private tier that is released stops its servers at once (the shared one never is).
    deinit { close(write) }

    /// Hands the process group of `pid` (a child started with a group of its own) to the watchdog.
    func track(_ pid: Int32) {
        let line = Array("\(pid)\n".utf8)
        _ = line.withUnsafeBytes { Foundation.write(write, $0.baseAddress, $0.count) }
    }
}
