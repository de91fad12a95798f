import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth import arcgis-profile` with the ArcGIS API for Python's PKI profiles (`key_file`,
/// `cert_file`: PEM files the API hands to `requests`), against portal-emulator behind nginx that
/// requires a client certificate of the test CA: the real `arcgis` package saves the profile, the
/// import makes a client certificate of its files, and stores it only once the portal's host
/// accepted it in a request; then `request` and `token` through nginx present it.
@Suite struct ArcGISPKIProfileImportTests {
    let tier: WebTier

    init() async throws {
        tier = try await WebTier.shared()
    }

    /// A private keyring, an emulator behind a client-certificate nginx (the portal's URL through
    /// it), and an empty home folder with a copy of the test client's PEM files in `pki/`
    /// (`alice.key` 0600, `alice.pem` with the CA after it).
    func withPortal(_ body: (PortalEmulator, String, [String: String], String) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pa-home-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: home + "/pki", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: home) }
        let key = try String(contentsOfFile: tier.pki.clientKeyPath, encoding: .utf8)
        try write(key, to: home + "/pki/alice.key", mode: 0o600)
        let chain = try [tier.pki.clientCertificatePath, tier.pki.caCertificatePath].map {
            try String(contentsOfFile: $0, encoding: .utf8)
        }
        try write(chain.joined(), to: home + "/pki/alice.pem", mode: 0o644)
        try await withPrivateKeyring { keyring in
            try await withEmulator { emulator in
                let front = try await tier.addProxy(to: URL(string: emulator.baseURL)!, front: .clientCertificate)
                let environment = keyring.environment.merging([
                    "HOME": home, "PORTAL_AUTH_CA_BUNDLE": tier.caBundlePath,
                ]) { $1 }
                try await body(emulator, front.appendingPathComponent("portal").absoluteString, environment, home)
            }
        }
    }

    func write(_ text: String, to path: String, mode: Int) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func pa(_ arguments: [String], _ env: [String: String]) async throws -> CLIResult {
        try await CLI.portalAuth(arguments, emulator: nil, environment: env, removing: ["PORTAL_AUTH_STORE"])
    }

    /// The lines of the test client's key, which no output may quote.
    func keyLines() throws -> [Substring] {
        try String(contentsOfFile: tier.pki.clientKeyPath, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("-----")
        }
    }

    /// Whether the keyring holds a client certificate of portal-auth's.
    func storesACertificate(_ env: [String: String]) async throws -> Bool {
        let search = try await CLI.run(
            "/usr/bin/secret-tool", ["search", "--all", "application", "portal-auth"], environment: env)
        return (search.stdout + search.stderr).contains("attribute.kind = client-certificate")
    }

    @Test func aPKIProfileTheRealAPISavedBecomesTheClientCertificateItsPortalGets() async throws {
        try await withPortal { emulator, portal, env, home in
            let saved = try await RealClients.runScript(
                "arcgis_profile.py", ["pki"],
                environment: env.merging([
                    "ARCGIS_PORTAL_URL": portal, "ARCGIS_CA": tier.caBundlePath,
                    "ARCGIS_KEY_FILE": home + "/pki/alice.key", "ARCGIS_CERT_FILE": home + "/pki/alice.pem",
                ]) { $1 })
            let report = try RealClients.report(saved)
            // The API reached the portal through nginx with the certificate (without it the handshake
            // fails and GIS raises); the portal knows no user of a certificate, so the API is anonymous.
            #expect((report["signIn"] as? [String: String]) == ["error": "anonymous"], "\(report)")
            #expect((report["profiles"] as? [String]) == ["pki"], "\(report) \(saved.stderr)")
            let file = home + "/.arcgisprofile"
            let before = try String(contentsOfFile: file, encoding: .utf8)
            #expect(before.contains("key_file = \(home)/pki/alice.key"), "\(before)")
            #expect(before.contains("cert_file = \(home)/pki/alice.pem"), "\(before)")

            // Without a certificate nginx refuses the portal.
            let info = portal + "/sharing/rest/info?f=json"
            let refused = try await pa(["request", info], env)
            #expect(
                refused.status == 3 && refused.stderr.contains("requires a client certificate"), "\(refused.stderr)")

            let imported = try await pa(["import", "arcgis-profile", "pki"], env)
            #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
            let host = "https://\(URL(string: portal)!.host()!):\(URL(string: portal)!.port!)"
            #expect(
                imported.stdout.hasPrefix(
                    "Profile pki (~/.arcgisprofile): stored the client certificate CN=alice,O=portal-auth tests "),
                "\(imported.stdout)")
            #expect(imported.stdout.contains("for \(host) (in keyring); it is presented to \(host) only."))
            let output = imported.stdout + imported.stderr
            #expect(try !keyLines().contains { output.contains($0) })
            #expect(try await storesACertificate(env))

            let request = try await pa(["request", portal + "/sharing/rest/portals/self?f=json"], env)
            #expect(request.status == 0 && request.stdout.contains("\"id\""), "\(request.stderr)")
            #expect(try await pa(["status"], env).stdout.contains("client-certificate"))
            // A token sign-in to the portal behind it goes through nginx with the certificate.
            let signIn = try await CLI.portalAuth(
                ["login", "--portal", portal, "--username", "alice", "--password-stdin"], emulator: nil,
                stdin: alicePassword, environment: env, removing: ["PORTAL_AUTH_STORE"])
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let token = try await pa(["token", portal], env)
            #expect(token.status == 0 && !token.trimmedStdout.isEmpty, "\(token.stderr)")
            #expect(emulator.counters().generateTokenRequests >= 1)
            // Nothing was written to the API's file.
            #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
        }
    }

    @Test func aPKIProfileThatCannotBeImportedSaysWhyInOneLineAndStoresNothing() async throws {
        try await withPortal { _, portal, env, home in
            let pki = home + "/pki"
            let key = try String(contentsOfFile: pki + "/alice.key", encoding: .utf8)
            try write(key, to: pki + "/loose.key", mode: 0o644)
            let encrypted = try await CLI.run(
                "/usr/bin/openssl",
                [
                    "pkey", "-in", pki + "/alice.key", "-aes256", "-passout", "env:PA_KEY_PASS", "-out",
                    pki + "/enc.key",
                ],
                environment: ["PA_KEY_PASS": "a-passphrase"])
            #expect(encrypted.status == 0, "\(encrypted.stderr)")
            chmod(pki + "/enc.key", 0o600)
            let otherCA = tier.pki.directory + "/other-ca-client"
            try write(
                try String(contentsOfFile: otherCA + ".key", encoding: .utf8), to: pki + "/other.key", mode: 0o600)
            try write(
                try String(contentsOfFile: otherCA + ".pem", encoding: .utf8), to: pki + "/other.pem", mode: 0o644)
            func profile(_ name: String, key: String, cert: String = pki + "/alice.pem") -> String {
                "[\(name)]\ndate_modified = 2026-11-28 13:00:00.000000\nurl = \(portal)\nkey_file = \(key)\n"
                    + "cert_file = \(cert)\n\n"
            }
            try [
                profile("wrongpair", key: tier.pki.serverKeyPath), profile("encrypted", key: pki + "/enc.key"),
                profile("loose", key: pki + "/loose.key"), profile("missing", key: pki + "/none.key"),
                profile("othercert", key: pki + "/alice.key", cert: pki + "/none.pem"),
                profile("otherca", key: pki + "/other.key", cert: pki + "/other.pem"),
                "[pfx]\nurl = \(portal)\ncert_file = \(tier.pki.clientP12Path)\n",
            ].joined().write(toFile: home + "/.arcgisprofile", atomically: true, encoding: .utf8)

            let imported = try await pa(["import", "arcgis-profile"], env)
            #expect(imported.status == 1, "\(imported.stdout) \(imported.stderr)")
            let lines = imported.stdout.split(separator: "\n")
            #expect(lines.count == 7, "\(imported.stdout)")
            func line(_ name: String) -> String {
                lines.first { $0.hasPrefix("Profile \(name) (~/.arcgisprofile): not imported: ") }.map(String.init)
                    ?? ""
            }
            #expect(line("wrongpair").contains("goes with the private key file \(tier.pki.serverKeyPath)"))
            #expect(line("wrongpair").contains("--p12 FILE --password-stdin"), "\(line("wrongpair"))")
            #expect(line("encrypted").contains("the private key file \(pki)/enc.key is encrypted"))
            #expect(line("encrypted").contains("openssl pkcs12 -export -inkey \(pki)/enc.key"), "\(line("encrypted"))")
            #expect(
                line("loose").hasSuffix(
                    "has mode 0644: other users may read or change it: run chmod 600 \(pki)/loose.key"))
            #expect(line("missing").contains("the private key file \(pki)/none.key does not exist"))
            #expect(line("othercert").contains("the certificate file \(pki)/none.pem does not exist"))
            #expect(line("otherca").contains("refused the client certificate"), "\(line("otherca"))")
            #expect(line("pfx").hasSuffix("--p12 \(tier.pki.clientP12Path) --password-stdin"), "\(line("pfx"))")
            #expect(try !keyLines().contains { imported.stdout.contains($0) || imported.stderr.contains($0) })
            #expect(try await !storesACertificate(env))
            #expect(try await pa(["request", portal + "/sharing/rest/info?f=json"], env).status == 3)
        }
    }
}
