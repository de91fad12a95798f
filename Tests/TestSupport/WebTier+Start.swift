import CPortalAuth
import Foundation

// Starting the tier: the steps of its initializer.
extension WebTier {
    /// The tier's private temporary directory and its sub-folders.
    static func makeDirectories(isRoot: Bool) throws -> String {
        var template = Array("\(NSTemporaryDirectory())/portal-auth-webtier-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw WebTierError("mkdtemp: \(String(cString: strerror(errno)))") }
        let dir = URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
        // As root the servers' workers run as nobody: they must reach the documents, password
        // files and keytab (this is a throwaway directory of test secrets).
        if isRoot { chmod(dir, 0o755) }
        for sub in ["pki", "www", "nginx", "nginx/tmp", "apache", "apache/run", "krb5"] {
            try FileManager.default.createDirectory(
                atPath: "\(dir)/\(sub)", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
        }
        return dir
    }

    /// Every block's documents: `data.json` and `arcgis/rest/info`, naming the block.
    static func writeDocuments(in dir: String) throws {
        for name in ["self-signed", "rotating", "client-certificate", "basic", "basic-plain", "digest", "negotiate"] {
            try FileManager.default.createDirectory(
                atPath: "\(dir)/www/\(name)/arcgis/rest", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            try #"{"served":"\#(name)"}"#.write(
                toFile: "\(dir)/www/\(name)/data.json", atomically: false, encoding: .utf8)
            try #"{"currentVersion":11.3,"served":"\#(name)"}"#.write(
                toFile: "\(dir)/www/\(name)/arcgis/rest/info",
                atomically: false, encoding: .utf8)
        }
    }

    /// The first generation of the rotating block's self-signed certificate: the path nginx
    /// serves (a copy under a unique name), the key, and the fingerprint.
    static func makeRotatingCertificate(
        in dir: String, pki: TestPKI
    ) throws -> (certificate: String, key: String, fingerprint: String) {
        let certificate = "\(dir)/nginx/rotating.pem"
        let key = "\(dir)/nginx/rotating.key"
        try TestPKI.makeSelfSigned(certificatePath: certificate, keyPath: key, in: pki.directory)
        let firstGeneration = "\(dir)/nginx/rotating-\(UUID().uuidString).pem"
        try FileManager.default.copyItem(atPath: certificate, toPath: firstGeneration)
        return (firstGeneration, key, try TestPKI.fingerprint(ofCertificateAt: certificate))
    }

    /// nginx's htpasswd and Apache's htdigest (mode 0644: the workers read them per request).
    static func writePasswordFiles(
        in dir: String, user: String, basicPassword: String, digestRealm: String, digestPassword: String
    ) throws -> (htpasswd: String, htdigest: String) {
        let htpasswd = "\(dir)/nginx/htpasswd"
        let made = try Subprocess.runBlocking(
            "htpasswd", ["-i", "-c", htpasswd, user], stdin: basicPassword,
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        guard made.status == 0 else { throw WebTierError("htpasswd failed: \(made.stderr)") }
        let digestHash = try Subprocess.runBlocking(
            "openssl", ["md5", "-r"], stdin: "\(user):\(digestRealm):\(digestPassword)",
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        guard digestHash.status == 0, let hash = digestHash.stdout.split(separator: " ").first, hash.count == 32 else {
            throw WebTierError("openssl md5 failed: \(digestHash.stderr)")
        }
        let htdigest = "\(dir)/apache/htdigest"
        try "\(user):\(digestRealm):\(hash)\n".write(toFile: htdigest, atomically: false, encoding: .utf8)
        chmod(htpasswd, 0o644)
        chmod(htdigest, 0o644)
        return (htpasswd, htdigest)
    }

    /// The KDC: configuration, database, the user's and HTTP/localhost's principals, the HTTP
    /// keytab, then krb5kdc itself. Returns its pid, the keytab and the environment of its tools.
    static func startKerberos(
        directory krb: String, realm: String, kdcPort: Int, configPath: String, credentialCache: String,
        user: String, password: String, isRoot: Bool, watchdog: Watchdog
    ) throws -> (kdc: SupervisedServer, keytab: String, environment: [String: String]) {
        let kdcProfile = "\(krb)/kdc.conf"
        let keytab = "\(krb)/http.keytab"
        try krb5Conf(realm: realm, kdcPort: kdcPort, directory: krb)
            .write(toFile: configPath, atomically: false, encoding: .utf8)
        try kdcConf(realm: realm, kdcPort: kdcPort, directory: krb)
            .write(toFile: kdcProfile, atomically: false, encoding: .utf8)
        try "*/admin@\(realm) *\n".write(toFile: "\(krb)/kadm5.acl", atomically: false, encoding: .utf8)
        chmod(configPath, 0o644)
        let environment = Subprocess.environment([
            "KRB5_CONFIG": configPath, "KRB5_KDC_PROFILE": kdcProfile,
            "KRB5CCNAME": credentialCache, "KRB5RCACHETYPE": "none",
        ])
        let masterPassword = "master-\(UUID().uuidString)"
        let created = try Subprocess.runBlocking(
            "kdb5_util", ["-r", realm, "create", "-s", "-P", masterPassword],
            stdin: nil, environment: environment, timeout: 60)
        guard created.status == 0 else {
            throw WebTierError("kdb5_util create failed: \(created.stderr)\(created.stdout)")
        }
        let kadmin = try Subprocess.runBlocking(
            "kadmin.local", ["-r", realm],
            stdin: """
                addprinc -pw \(password) \(user)@\(realm)
                addprinc -randkey HTTP/localhost@\(realm)
                ktadd -k \(keytab) HTTP/localhost@\(realm)

                """,
            environment: environment, timeout: 60)
        guard kadmin.status == 0, FileManager.default.fileExists(atPath: keytab) else {
            throw WebTierError("kadmin.local failed: \(kadmin.stderr)\(kadmin.stdout)")
        }
        chmod(keytab, isRoot ? 0o644 : 0o600)
        let kdc = try SupervisedServer(
            name: "krb5kdc", executable: "krb5kdc", arguments: ["-n", "-r", realm, "-P", "\(krb)/krb5kdc.pid"],
            environment: environment, output: "\(krb)/krb5kdc.out", logs: ["\(krb)/kdc.log"], ports: [kdcPort],
            watchdog: watchdog)
        return (kdc, keytab, environment)
    }

    /// Whether the Apache block at `port` answers a request itself (401: each block wants a
    /// password or a ticket), not only its listening socket: its worker process has started.
    static func apacheAnswers(port: Int) -> Bool {
        let answer = try? Subprocess.runBlocking(
            "curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "https://127.0.0.1:\(port)/"],
            stdin: nil, environment: ProcessInfo.processInfo.environment, timeout: 10)
        return answer?.stdout == "401"
    }
}

/// The last `lines` lines of a file ("(missing)" when it cannot be read).
func tail(_ path: String, lines: Int = 30) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "(missing)" }
    return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
}
