import CPortalAuth
public import Foundation
import NIOConcurrencyHelpers

// Real servers on loopback for the network-credential tests (issue #5): nginx (self-signed
// server, client certificates, Basic), Apache httpd (Digest, Negotiate through
// mod_auth_gssapi) and an MIT Kerberos KDC, all from Debian packages (scripts/setup.sh), all
// started by the tests themselves in a private temporary directory.

/// Errors of the web tier: what failed, with the tail of the server's log when there is one.
public typealias WebTierError = SubprocessError

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

    let nginx: SupervisedServer
    let apache: SupervisedServer
    let kdc: SupervisedServer
    /// The pid of the Apache parent now running (its process group's id): a server of the tier
    /// that exits is started again on the same ports, with a new pid.
    public var apachePid: Int32 { apache.pid }
    private let rotating: NIOLockedValueBox<(certificate: String, key: String, fingerprint: String)>
    /// Held through every change of nginx's configuration and its reload; the proxy blocks added.
    private let reloads = NIOLockedValueBox<[String]>([])
    let watchdog: Watchdog

    // MARK: Shared instance

    private static let sharedTask = NIOLockedValueBox<Task<WebTier, any Error>?>(nil)

    /// The tier of this test process: started on first call (a few seconds), the same instance
    /// afterwards. A failed start is not retried: every caller gets the same error.
    public static func shared() async throws -> WebTier {
        let task = sharedTask.withLockedValue { task in
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

    /// Runs `body` with the tier of this test process (``shared()``). The tier outlives the
    /// call: it is shared by every test of the process and stopped, with its folder removed, by
    /// its watchdog when the process ends.
    public static func with<T>(_ body: (WebTier) async throws -> T) async throws -> T {
        try await body(shared())
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
    public var rotatingSelfSignedFingerprint: String { rotating.withLockedValue { $0.fingerprint } }

    /// The PEM file of the certificate ``rotatingSelfSignedURL`` serves now.
    public var rotatingSelfSignedCertificatePath: String { rotating.withLockedValue { $0.certificate } }

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
        try reloads.withLockedValue { _ in try rotateLocked() }
    }

    private func rotateLocked() throws -> String {
        // nginx reads the fixed paths `rotating.pem`/`rotating.key` at reload; copies of each
        // generation are kept for tests that want the old and the new certificate.
        let live = (certificate: "\(directory)/nginx/rotating.pem", key: "\(directory)/nginx/rotating.key")
        try TestPKI.makeSelfSigned(certificatePath: live.certificate, keyPath: live.key, in: pki.directory)
        let fingerprint = try TestPKI.fingerprint(ofCertificateAt: live.certificate)
        let generation = "\(directory)/nginx/rotating-\(UUID().uuidString).pem"
        try FileManager.default.copyItem(atPath: live.certificate, toPath: generation)
        guard kill(nginx.pid, SIGHUP) == 0 else { throw WebTierError("nginx is gone\n\(tail(nginxErrorLogPath))") }
        let port = rotatingSelfSignedURL.port!
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? Self.servedFingerprint(port: port)) == fingerprint {
                rotating.withLockedValue { $0 = (generation, live.key, fingerprint) }
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
        try reloads.withLockedValue { blocks in
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
            guard kill(nginx.pid, SIGHUP) == 0 else { throw WebTierError("nginx is gone\n\(tail(nginxErrorLogPath))") }
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
        let dir = try Self.makeDirectories(isRoot: isRoot)
        directory = dir
        watchdog = try Watchdog(directory: dir)
        // Private keys stay 0600: nginx's and Apache's parents read them before dropping to nobody.
        pki = try TestPKI.create(in: "\(dir)/pki")

        let p = try WebTierPorts.pick()
        selfSignedURL = URL(string: "https://127.0.0.1:\(p.selfSigned)")!
        rotatingSelfSignedURL = URL(string: "https://127.0.0.1:\(p.rotating)")!
        clientCertificateURL = URL(string: "https://127.0.0.1:\(p.clientCertificate)")!
        basicURL = URL(string: "https://127.0.0.1:\(p.basic)")!
        basicPlainURL = URL(string: "http://127.0.0.1:\(p.basicPlain)")!
        digestURL = URL(string: "https://127.0.0.1:\(p.digest)")!
        negotiateURL = URL(string: "https://localhost:\(p.negotiate)")!
        kdcPort = p.kdc

        try Self.writeDocuments(in: dir)
        selfSignedFingerprint = try TestPKI.fingerprint(ofCertificateAt: pki.selfSignedCertificatePath)
        selfSignedPublicKeyPin = try TestPKI.publicKeyPin(ofCertificateAt: pki.selfSignedCertificatePath)
        rotating = NIOLockedValueBox(try Self.makeRotatingCertificate(in: dir, pki: pki))
        let passwords = try Self.writePasswordFiles(
            in: dir, user: userName, basicPassword: basicPassword, digestRealm: digestRealm,
            digestPassword: digestPassword)

        let krb = "\(dir)/krb5"
        krb5ConfigPath = "\(krb)/krb5.conf"
        credentialCache = "FILE:\(krb)/ccache"
        kdcLogPath = "\(krb)/kdc.log"
        let kerberos = try Self.startKerberos(
            directory: krb, realm: kerberosRealm, kdcPort: p.kdc, configPath: krb5ConfigPath,
            credentialCache: credentialCache, user: userName, password: kerberosPassword, isRoot: isRoot,
            watchdog: watchdog)

        nginxErrorLogPath = "\(dir)/nginx/error.log"
        let nginxConf = "\(dir)/nginx/nginx.conf"
        try "".write(toFile: "\(dir)/nginx/proxies.conf", atomically: false, encoding: .utf8)
        try Self.nginxConf(directory: dir, pki: pki, ports: p, isRoot: isRoot, basicRealm: basicRealm)
            .write(toFile: nginxConf, atomically: false, encoding: .utf8)
        nginx = try SupervisedServer(
            name: "nginx", executable: "nginx",
            arguments: ["-p", "\(dir)/nginx", "-c", nginxConf, "-e", nginxErrorLogPath],
            environment: ProcessInfo.processInfo.environment, output: "\(dir)/nginx/nginx.out",
            logs: [nginxErrorLogPath],
            ports: [p.selfSigned, p.rotating, p.clientCertificate, p.basic, p.basicPlain], watchdog: watchdog)

        apacheErrorLogPath = "\(dir)/apache/error.log"
        let apacheConf = "\(dir)/apache/httpd.conf"
        try Self.apacheConf(
            directory: dir, pki: pki, digestPort: p.digest, negotiatePort: p.negotiate, isRoot: isRoot,
            digestRealm: digestRealm, htdigest: passwords.htdigest, keytab: kerberos.keytab
        )
        .write(toFile: apacheConf, atomically: false, encoding: .utf8)
        apache = try SupervisedServer(
            name: "apache2", executable: "apache2",
            arguments: ["-d", "\(dir)/apache", "-f", apacheConf, "-DFOREGROUND"],
            environment: kerberos.environment, output: "\(dir)/apache/apache.out", logs: [apacheErrorLogPath],
            ports: [p.digest, p.negotiate],
            answers: { Self.apacheAnswers(port: p.digest) && Self.apacheAnswers(port: p.negotiate) },
            watchdog: watchdog)
        kdc = kerberos.kdc

        // Ready when every port accepts connections and Apache's worker answers.
        try kdc.waitUntilReady()
        try nginx.waitUntilReady()
        try apache.waitUntilReady()
        startupSeconds = Date().timeIntervalSince(began)
    }
}
