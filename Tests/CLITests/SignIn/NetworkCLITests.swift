import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth login --url … --username/--p12/--kerberos`, `trust`, `untrust`, and `request`,
/// `status`, `logout` with network credentials, against the real web tier (nginx, Apache, an MIT
/// KDC), each test with a keyring of its own.
@Suite("CLI: network credentials against nginx, Apache and a KDC")
struct NetworkCLITests {
    let tier: WebTier

    init() async throws {
        tier = try await WebTier.shared()
    }

    /// Runs portal-auth against `keyring`, trusting the test CA unless told otherwise.
    func pa(
        _ arguments: [String], _ keyring: PrivateKeyring, stdin: String? = nil, environment: [String: String] = [:],
        trustTestCA: Bool = true
    ) async throws -> CLIResult {
        var env = keyring.environment.merging(environment) { $1 }
        if trustTestCA { env["PORTAL_AUTH_CA_BUNDLE"] = tier.caBundlePath }
        return try await CLI.run(
            CLI.portalAuth, arguments, stdin: stdin, environment: env,
            removing: ["PORTAL_AUTH_CA_BUNDLE", "PORTAL_AUTH_STORE"])
    }

    /// Every attribute and label line of portal-auth's items in `keyring` (never the secrets).
    func keyringAttributes(_ keyring: PrivateKeyring) async throws -> String {
        let r = try await CLI.run(
            "/usr/bin/secret-tool", ["search", "--all", "application", "portal-auth"], environment: keyring.environment)
        return (r.stdout + r.stderr).split(separator: "\n").filter { !$0.hasPrefix("secret = ") }.joined(
            separator: "\n")
    }

    func url(_ base: URL, _ path: String = "data.json") -> String { base.appendingPathComponent(path).absoluteString }
    func place(_ base: URL) -> String { "\(base.host()!):\(base.port!)" }

    // MARK: - trust / untrust

    @Test func trustShowsTheCertificateAndPinsItOnlyWhenConfirmed() async throws {
        try await withPrivateKeyring { keyring in
            let target = url(tier.selfSignedURL)

            let refused = try await pa(["request", target], keyring)
            #expect(refused.status == 4)
            #expect(refused.oneLineError)
            #expect(
                refused.stderr.contains("self-signed")
                    && refused.stderr.contains("portal-auth trust \(place(tier.selfSignedURL))"))

            // No terminal and no --fingerprint: shows it, trusts nothing.
            let unconfirmed = try await pa(["trust", place(tier.selfSignedURL)], keyring)
            #expect(unconfirmed.status == 4)
            #expect(unconfirmed.stderr.contains(tier.selfSignedFingerprint))
            #expect(unconfirmed.stderr.contains("--fingerprint"))
            #expect(try await keyringAttributes(keyring).isEmpty)

            // The wrong fingerprint: refused, nothing stored.
            let other = String(repeating: "AB:", count: 31) + "AB"
            let wrong = try await pa(["trust", place(tier.selfSignedURL), "--fingerprint", other], keyring)
            #expect(wrong.status == 4)
            #expect(wrong.stderr.contains("not the \(other) given"))
            #expect(try await keyringAttributes(keyring).isEmpty)

            // Not a fingerprint at all: a usage error.
            let garbage = try await pa(["trust", place(tier.selfSignedURL), "--fingerprint", "12:34"], keyring)
            #expect(garbage.status == 64 || garbage.status == 2)
            #expect(garbage.stderr.contains("not a SHA-256 fingerprint"))

            // The right one, without colons and in lower case.
            let bare = tier.selfSignedFingerprint.replacingOccurrences(of: ":", with: "").lowercased()
            let trusted = try await pa(["trust", place(tier.selfSignedURL), "--fingerprint", bare], keyring)
            #expect(trusted.status == 0, "\(trusted.stderr)")
            #expect(trusted.stdout.contains("Trusted \(place(tier.selfSignedURL))"))
            let attributes = try await keyringAttributes(keyring)
            #expect(attributes.contains("attribute.kind = server-trust"))
            #expect(attributes.contains("attribute.server = https://\(place(tier.selfSignedURL))"))

            let request = try await pa(["request", target], keyring)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("\"served\""))
            #expect(request.stdout.contains("self-signed"))
            let status = try await pa(["status"], keyring)
            #expect(status.stdout.contains("server-trust"))
            #expect(status.stdout.contains("https://\(place(tier.selfSignedURL))"))

            // A CA-signed server that verifies needs no trust.
            let verifies = try await pa(["trust", place(tier.basicURL)], keyring)
            #expect(verifies.status == 0)
            #expect(verifies.stdout.contains("Nothing to trust"))

            let untrust = try await pa(["untrust", place(tier.selfSignedURL)], keyring)
            #expect(untrust.status == 0)
            #expect(untrust.stdout.contains("no longer trusted"))
            #expect(try await pa(["request", target], keyring).status == 4)
            #expect(try await keyringAttributes(keyring).isEmpty)
        }
    }

    /// On a terminal (a pseudo-terminal from script(1)), trust and request show the certificate and ask.
    @Test func onATerminalTrustAndRequestAsk() async throws {
        try await withPrivateKeyring { keyring in
            func onTerminal(_ arguments: [String], answer: String) async throws -> CLIResult {
                let command = ([CLI.portalAuth] + arguments).map { "'\($0)'" }.joined(separator: " ")
                var env = keyring.environment
                env["PORTAL_AUTH_CA_BUNDLE"] = tier.caBundlePath
                return try await CLI.run(
                    "/usr/bin/script", ["-qec", command, "/dev/null"], stdin: answer + "\n", environment: env,
                    removing: ["PORTAL_AUTH_STORE"])
            }
            let no = try await onTerminal(["trust", place(tier.selfSignedURL)], answer: "n")
            #expect(no.status == 3)
            #expect(no.stdout.contains(tier.selfSignedFingerprint) && no.stdout.contains("[y/N]"))
            #expect(no.stdout.contains("nothing was stored"))
            #expect(try await keyringAttributes(keyring).isEmpty)

            let yes = try await onTerminal(["request", url(tier.selfSignedURL)], answer: "y")
            #expect(yes.status == 0, "\(yes.stdout)")
            #expect(yes.stdout.contains("self-signed") && yes.stdout.contains("\"served\""))
            #expect(try await keyringAttributes(keyring).contains("attribute.kind = server-trust"))
        }
    }

    // MARK: - login --p12

    @Test func p12LoginChecksTheFileAndTheServerBeforeStoring() async throws {
        try await withPrivateKeyring { keyring in
            let target = url(tier.clientCertificateURL)
            let pki = tier.pki
            func login(_ file: String, _ password: String) async throws -> CLIResult {
                try await pa(["login", "--url", target, "--p12", file, "--password-stdin"], keyring, stdin: password)
            }

            let demand = try await pa(["request", target], keyring)
            #expect(demand.status == 3)
            #expect(demand.stderr.contains("requires a client certificate") && demand.stderr.contains("--p12"))

            let wrong = try await login(pki.clientP12Path, "not-it")
            #expect(wrong.status == 3)
            #expect(wrong.oneLineError)
            #expect(wrong.stderr.contains("password of \(pki.clientP12Path) is wrong"))
            #expect(!wrong.stderr.contains("not-it"))

            let junk = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).p12")
            try Data((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: junk)
            defer { try? FileManager.default.removeItem(at: junk) }
            let corrupt = try await login(junk.path, pki.p12Password)
            #expect(corrupt.status == 2)
            #expect(corrupt.stderr.contains("not a readable PKCS#12 file"))

            let noKey = try await login(pki.certificateOnlyP12Path, pki.p12Password)
            #expect(noKey.status == 2)
            #expect(noKey.stderr.contains("no private key"))

            let otherCA = try await login(pki.otherCAClientP12Path, pki.p12Password)
            #expect(otherCA.status == 3)
            #expect(otherCA.stderr.contains("refused the client certificate"))

            let missing = try await login("/nonexistent/alice.p12", pki.p12Password)
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("cannot read the PKCS#12 file"))
            #expect(try await keyringAttributes(keyring).isEmpty)

            // A legacy file (RC2/3DES) works end to end.
            let ok = try await login(pki.legacyClientP12Path, pki.p12Password)
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.contains("Stored the client certificate"))
            let attributes = try await keyringAttributes(keyring)
            #expect(attributes.contains("attribute.kind = client-certificate"))
            #expect(!attributes.contains(pki.p12Password))
            let request = try await pa(["request", target], keyring)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("client-certificate"))
            #expect(try await pa(["status"], keyring).stdout.contains("client-certificate"))

            // A refused replacement leaves the working certificate in place.
            #expect(try await login(pki.otherCAClientP12Path, pki.p12Password).status == 3)
            #expect(try await pa(["request", target], keyring).status == 0)

            let logout = try await pa(["logout", "--url", tier.clientCertificateURL.absoluteString], keyring)
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(try await keyringAttributes(keyring).isEmpty)
            #expect(try await pa(["request", target], keyring).status == 3)
        }
    }

    /// A certificate enters the store only once a request with it succeeded: a sign-in whose
    /// request failed (the handshake took the certificate, the page is not there) stores nothing.
    @Test func aFailedCertificateSignInStoresNothing() async throws {
        try await withPrivateKeyring { keyring in
            let failed = try await pa(
                [
                    "login", "--url", url(tier.clientCertificateURL, "no-such-page.json"), "--p12",
                    tier.pki.clientP12Path, "--password-stdin",
                ],
                keyring, stdin: tier.pki.p12Password)
            #expect(failed.status == 1, "\(failed.stderr)")
            #expect(failed.stderr.contains("404"), "\(failed.stderr)")
            #expect(try await keyringAttributes(keyring).isEmpty)
            let status = try await pa(["status"], keyring)
            #expect(!status.stdout.contains("client-certificate"), "\(status.stdout)")
        }
    }

    /// `status --check` reads a client certificate's end of validity (the test PKI signs for 825 days).
    @Test func statusCheckWarnsBeforeAClientCertificateEnds() async throws {
        try await withPrivateKeyring { keyring in
            let stored = try await pa(
                [
                    "login", "--url", url(tier.clientCertificateURL), "--p12", tier.pki.clientP12Path,
                    "--password-stdin",
                ],
                keyring, stdin: tier.pki.p12Password)
            #expect(stored.status == 0, "\(stored.stderr)")
            let week = try await pa(["status", "--check"], keyring)
            #expect(week.status == 0, "\(week.stderr)")
            let years = try await pa(["status", "--check", "--within", "156w"], keyring)
            #expect(years.status == 6, "\(years.stderr)")
            #expect(years.stderr.hasPrefix("portal-auth: client-certificate for https://"), "\(years.stderr)")
            #expect(!years.stderr.contains(tier.pki.p12Password))
        }
    }

    @Test func anExpiredCertificateIsStoredWithAWarningAndTheServerRefusesIt() async throws {
        try await withPrivateKeyring { keyring in
            let pki = tier.pki
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("expired-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // Signed by the test CA, valid until yesterday.
            for step in [
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/k.pem", "-out", "\(dir)/r.csr", "-subj",
                    "/CN=expired alice",
                ],
                [
                    "x509", "-req", "-in", "\(dir)/r.csr", "-CA", pki.caCertificatePath, "-CAkey", pki.caKeyPath,
                    "-CAcreateserial", "-CAserial", "\(dir)/serial", "-out", "\(dir)/c.pem", "-days", "-1",
                ],
                [
                    "pkcs12", "-export", "-inkey", "\(dir)/k.pem", "-in", "\(dir)/c.pem", "-out", "\(dir)/e.p12",
                    "-passout", "env:PA_P12_PASSWORD",
                ],
            ] {
                // The password through the environment, not argv (as TestPKI does).
                let r = try await CLI.run("/usr/bin/openssl", step, environment: ["PA_P12_PASSWORD": pki.p12Password])
                #expect(r.status == 0, "\(r.stderr)")
            }
            let r = try await pa(
                ["login", "--url", url(tier.clientCertificateURL), "--p12", "\(dir)/e.p12", "--password-stdin"],
                keyring,
                stdin: pki.p12Password)
            #expect(r.stderr.contains("warning: the certificate CN=expired alice is not valid now"))
            // nginx refuses an expired certificate: nothing is stored.
            #expect(r.status == 3)
            #expect(r.stderr.contains("refused the client certificate"))
            #expect(try await keyringAttributes(keyring).isEmpty)
        }
    }

    // MARK: - login --url --username (Basic, Digest)

    @Test func basicLoginStoresThePasswordOnlyWhenTheServerAcceptsIt() async throws {
        try await withPrivateKeyring { keyring in
            let target = url(tier.basicURL)
            func login(_ password: String, _ base: URL? = nil, _ extra: [String] = []) async throws -> CLIResult {
                try await pa(
                    ["login", "--url", url(base ?? tier.basicURL), "--username", "alice", "--password-stdin"] + extra,
                    keyring, stdin: password)
            }
            let ask = try await pa(["request", target], keyring)
            #expect(ask.status == 3)
            #expect(
                ask.stderr.contains("HTTP Basic") && ask.stderr.contains("stdin is not a terminal")
                    && ask.stderr.contains("--password-stdin"))

            let wrong = try await login("wrong-password")
            #expect(wrong.status == 3)
            #expect(wrong.oneLineError)
            #expect(wrong.stderr.contains("password or user name is wrong; nothing was stored"))
            #expect(!wrong.stderr.contains("wrong-password"))
            #expect(try await keyringAttributes(keyring).isEmpty)

            let ok = try await login(tier.basicPassword)
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.contains("as alice with HTTP Basic"))
            let attributes = try await keyringAttributes(keyring)
            #expect(attributes.contains("attribute.kind = http-password"))
            #expect(attributes.contains("attribute.username = alice"))
            #expect(!attributes.contains(tier.basicPassword))
            let request = try await pa(["request", target], keyring)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("basic"))
            // whoami says what is signed in there: the network credential, its server and user (#29).
            let whoami = try await pa(["whoami", "--url", target], keyring)
            #expect(whoami.status == 0, "\(whoami.stderr)")
            #expect(whoami.stdout.contains("an HTTP password of alice"), "\(whoami.stdout)")
            let whoamiJSON = try await pa(["whoami", "--url", target, "--json"], keyring)
            #expect(whoamiJSON.status == 0, "\(whoamiJSON.stderr)")
            #expect(whoamiJSON.stdout.contains("\"credential\" : \"http-password\""), "\(whoamiJSON.stdout)")

            // A wrong password later leaves the working one in place.
            #expect(try await login("wrong-again").status == 3)
            #expect(try await pa(["request", target], keyring).status == 0)

            // Basic over plain http: refused before the password is read, nothing stored.
            let plain = try await login(tier.basicPassword, tier.basicPlainURL)
            #expect(plain.status == 4)
            #expect(plain.stderr.contains("in clear") && plain.stderr.contains("--allow-basic-over-http"))
            let plainRequest = try await pa(["request", url(tier.basicPlainURL)], keyring)
            #expect(plainRequest.status == 4)
            #expect(!(try await keyringAttributes(keyring)).contains("attribute.server = http://"))
            let allowed = try await login(tier.basicPassword, tier.basicPlainURL, ["--allow-basic-over-http"])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try await pa(["request", url(tier.basicPlainURL)], keyring).stdout.contains("basic-plain"))

            // logout --all removes network credentials too.
            #expect(try await pa(["logout", "--all"], keyring).status == 0)
            #expect(try await keyringAttributes(keyring).isEmpty)
        }
    }

    @Test func digestLoginWithApache() async throws {
        try await withPrivateKeyring { keyring in
            let wrong = try await pa(
                ["login", "--url", url(tier.digestURL), "--username", "alice", "--password-stdin"], keyring,
                stdin: "nope")
            #expect(wrong.status == 3)
            #expect(wrong.stderr.contains("wrong"))
            let ok = try await pa(
                ["login", "--url", url(tier.digestURL), "--username", "alice", "--password-stdin"], keyring,
                stdin: tier.digestPassword)
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.contains("HTTP Digest"))
            #expect(ok.stdout.contains(tier.digestRealm))
            let request = try await pa(["request", url(tier.digestURL)], keyring)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("digest"))
            #expect(try await pa(["status", "--json"], keyring).stdout.contains("http-password"))
        }
    }

    // MARK: - Negotiate (Apache mod_auth_gssapi + MIT KDC)

    @Test func negotiateWithATicketFromKinit() async throws {
        try await withPrivateKeyring { keyring in
            let cache = tier.newCredentialCache()
            let env = tier.kerberosEnvironment(credentialCache: cache)
            let target = url(tier.negotiateURL)

            let noTicket = try await pa(["login", "--url", target, "--kerberos"], keyring, environment: env)
            #expect(noTicket.status == 3)
            #expect(noTicket.stderr.contains("no Kerberos ticket") && noTicket.stderr.contains("kinit"))
            let ask = try await pa(["request", target], keyring, environment: env)
            #expect(ask.status == 3)
            #expect(ask.stderr.contains("Negotiate"))

            try tier.kinit(credentialCache: cache)
            let ok = try await pa(["login", "--url", target, "--kerberos"], keyring, environment: env)
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.contains(tier.kerberosPrincipal))
            let attributes = try await keyringAttributes(keyring)
            #expect(attributes.contains("attribute.kind = http-password"))
            let request = try await pa(["request", target], keyring, environment: env)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("negotiate"))
        }
    }

    @Test func negotiateWithAPasswordAndNoTicket() async throws {
        try await withPrivateKeyring { keyring in
            let cache = tier.newCredentialCache()
            let env = tier.kerberosEnvironment(credentialCache: cache)
            let target = url(tier.negotiateURL)
            func login(_ password: String) async throws -> CLIResult {
                try await pa(
                    ["login", "--url", target, "--username", "alice", "--password-stdin"], keyring, stdin: password,
                    environment: env)
            }

            let wrong = try await login("not-the-kerberos-password")
            #expect(wrong.status == 3)
            #expect(wrong.oneLineError)
            #expect(wrong.stderr.contains("KDC refused the password"))
            #expect(!wrong.stderr.contains("not-the-kerberos-password"))
            #expect(try await keyringAttributes(keyring).isEmpty)

            let ok = try await login(tier.kerberosPassword)
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdout.contains("HTTP Negotiate"))
            // A new process gets its own ticket from the stored password.
            let request = try await pa(["request", target], keyring, environment: env)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("negotiate"))
            // The tickets stayed in the processes' memory: the user's cache is still empty.
            let klist = try await CLI.run("/usr/bin/klist", ["-s"], environment: env)
            #expect(klist.status != 0)
        }
    }

    // MARK: - The whole path: a portal behind a web tier that wants a password

    @Test func aPortalBehindBasicAuthSignsInAndAnswersThroughTheStoredPassword() async throws {
        try await withPrivateKeyring { keyring in
            try await withEmulator { emulator in
                let front = try await tier.addProxy(to: URL(string: emulator.baseURL)!, front: .basic)
                let portal = front.appendingPathComponent("portal").absoluteString

                // The web tier's password first (for its host and port), then the portal's token sign-in
                // through it: the token request carries the stored password.
                let web = try await pa(
                    ["login", "--url", portal + "/sharing/rest/info", "--username", "alice", "--password-stdin"],
                    keyring,
                    stdin: tier.basicPassword)
                #expect(web.status == 0, "\(web.stderr)")
                #expect(web.stdout.contains("HTTP Basic"))
                let arcgis = try await pa(
                    ["login", "--portal", portal, "--username", "alice", "--password-stdin"], keyring,
                    stdin: alicePassword)
                #expect(arcgis.status == 0, "\(arcgis.stderr)")
                let token = try await pa(["token", portal], keyring)
                #expect(token.status == 0, "\(token.stderr)")
                #expect(!token.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
                let whoami = try await pa(["whoami", "--portal", portal, "--json"], keyring)
                #expect(whoami.status == 0, "\(whoami.stderr)")
                #expect(whoami.stdout.contains("\"alice\""))
                let status = try await pa(["status"], keyring)
                #expect(status.stdout.contains("http-password") && status.stdout.contains("token"))
            }
        }
    }
}
