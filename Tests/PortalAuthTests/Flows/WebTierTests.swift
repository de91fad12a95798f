import Foundation
import TestSupport
import Testing

/// Proves the real-server harness (``WebTier``) with the system `curl` and `openssl` commands,
/// not with the project's own HTTP code: every block answers as documented.
/// Run alone with `swift test --filter WebTierTests`.
@Suite struct WebTierTests {
    /// What curl got: its exit status, the HTTP status (0 when no response), the body and the headers.
    struct Fetched {
        var exit: Int32
        var status: Int
        var body: String
        var headers: String
        var stderr: String
        /// The value of `"served"` in a JSON body.
        var served: String? {
            guard let data = body.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["served"] as? String
        }
    }

    /// Runs curl on `url`; `config` lines go to curl through `-K -` (standard input), which keeps
    /// passwords out of argv.
    func curl(
        _ url: URL, _ arguments: [String] = [], config: [String] = [], environment: [String: String] = [:]
    ) async throws -> Fetched {
        let headers = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webtier-headers-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: headers) }
        let result = try await Subprocess.run(
            "curl",
            ["-sS", "--max-time", "20", "-D", headers, "-w", "\n%{http_code}"] + arguments
                + (config.isEmpty ? [] : ["-K", "-"]) + [url.absoluteString],
            stdin: config.isEmpty ? nil : config.joined(separator: "\n") + "\n",
            environment: Subprocess.environment(environment), timeout: 30)
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.popLast() ?? "") ?? 0
        return Fetched(
            exit: result.status, status: status, body: lines.joined(separator: "\n"),
            headers: (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "", stderr: result.stderr)
    }

    /// A curl config line with a quoted value.
    func quoted(_ option: String, _ value: String) -> String {
        "\(option) = \"\(value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""
    }

    @Test func startsOnceAndServesTheInfoDocument() async throws {
        let tier = try await WebTier.shared()
        let again = try await WebTier.shared()
        #expect(tier === again)
        print("WebTier started in \(String(format: "%.1f", tier.startupSeconds)) s in \(tier.directory)")
        let info = try await curl(tier.selfSignedURL.appendingPathComponent("arcgis/rest/info"), ["-k"])
        #expect(info.status == 200)
        #expect(info.body == #"{"currentVersion":11.3,"served":"self-signed"}"#)
        #expect(info.headers.lowercased().contains("content-type: application/json"))
    }

    /// A server of the tier that dies is named with its logs and started again on the same ports
    /// (a private tier: the shared one's Apache serves other tests meanwhile).
    @Test func aServerOfTheTierThatExitsIsStartedAgain() async throws {
        let tier = try await WebTier.start()
        let url = tier.digestURL.appendingPathComponent("data.json")
        #expect(try await curl(url, ["-k"]).status == 401)
        let killed = tier.apachePid
        kill(-killed, SIGKILL)
        var answered: Fetched? = nil
        for _ in 0..<600 {
            if tier.apachePid != killed {
                answered = try await curl(url, ["-k"])
                if answered?.status == 401 { break }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(tier.apachePid != killed)
        #expect(answered?.status == 401, "\(answered?.stderr ?? "not started again within 30 s")")
    }

    @Test func selfSignedServerFailsVerificationUnlessPinned() async throws {
        let tier = try await WebTier.shared()
        let url = tier.selfSignedURL.appendingPathComponent("data.json")
        // Neither the system CAs nor the test CA trust it.
        let untrusted = try await curl(url)
        #expect(untrusted.exit == 60, "\(untrusted.stderr)")
        let otherCA = try await curl(url, ["--cacert", tier.caBundlePath])
        #expect(otherCA.exit == 60, "\(otherCA.stderr)")
        // The certificate itself as the trust anchor, its key pinned, or no verification.
        let anchored = try await curl(url, ["--cacert", tier.pki.selfSignedCertificatePath])
        #expect(anchored.exit == 0 && anchored.served == "self-signed", "\(anchored.stderr)")
        let pinned = try await curl(url, ["-k", "--pinnedpubkey", tier.selfSignedPublicKeyPin])
        #expect(pinned.exit == 0 && pinned.served == "self-signed", "\(pinned.stderr)")
        let insecure = try await curl(url, ["-k"])
        #expect(insecure.served == "self-signed")
        // Another key's pin fails (curl exit 90: SSL public key does not match pinned key).
        let rotatingPin = try TestPKI.publicKeyPin(ofCertificateAt: tier.rotatingSelfSignedCertificatePath)
        let wrongPin = try await curl(url, ["-k", "--pinnedpubkey", rotatingPin])
        #expect(wrongPin.exit == 90, "\(wrongPin.stderr)")
        // The exposed fingerprint is the one served, in openssl's format.
        #expect(try WebTier.servedFingerprint(port: tier.selfSignedURL.port!) == tier.selfSignedFingerprint)
        #expect(
            tier.selfSignedFingerprint.range(of: "^([0-9A-F]{2}:){31}[0-9A-F]{2}$", options: .regularExpression) != nil)
    }

    @Test func rotatingTheSelfSignedCertificateServesANewKey() async throws {
        let tier = try await WebTier.shared()
        try await withRotatingServer {
            let url = tier.rotatingSelfSignedURL.appendingPathComponent("data.json")
            let oldFingerprint = tier.rotatingSelfSignedFingerprint
            let oldCertificate = tier.rotatingSelfSignedCertificatePath
            let oldPin = try TestPKI.publicKeyPin(ofCertificateAt: oldCertificate)
            let before = try await curl(url, ["--cacert", oldCertificate])
            #expect(before.exit == 0 && before.served == "rotating", "\(before.stderr)")

            let newFingerprint = try await tier.rotateSelfSignedCertificate()
            #expect(newFingerprint != oldFingerprint)
            #expect(tier.rotatingSelfSignedFingerprint == newFingerprint)
            #expect(try WebTier.servedFingerprint(port: tier.rotatingSelfSignedURL.port!) == newFingerprint)
            #expect(try TestPKI.publicKeyPin(ofCertificateAt: tier.rotatingSelfSignedCertificatePath) != oldPin)
            // The old certificate no longer verifies the server; the new one does.
            let stale = try await curl(url, ["--cacert", oldCertificate])
            #expect(stale.exit == 60, "\(stale.stderr)")
            let fresh = try await curl(url, ["--cacert", tier.rotatingSelfSignedCertificatePath])
            #expect(fresh.exit == 0 && fresh.served == "rotating", "\(fresh.stderr)")
            // The other blocks are untouched by the reload.
            #expect(try WebTier.servedFingerprint(port: tier.selfSignedURL.port!) == tier.selfSignedFingerprint)
        }
    }

    @Test func clientCertificateBlockNeedsACertificateOfTheTestCA() async throws {
        let tier = try await WebTier.shared()
        let url = tier.clientCertificateURL.appendingPathComponent("data.json")
        let none = try await curl(url, ["--cacert", tier.caBundlePath])
        #expect(none.status == 400 && none.served == nil, "\(none.stderr)")
        let good = try await curl(
            url, ["--cacert", tier.caBundlePath, "--cert-type", "P12"],
            config: [quoted("cert", "\(tier.pki.clientP12Path):\(tier.pki.p12Password)")])
        #expect(good.status == 200 && good.served == "client-certificate", "\(good.stderr)")
        let info = try await curl(
            tier.clientCertificateURL.appendingPathComponent("arcgis/rest/info"),
            [
                "--cacert", tier.caBundlePath, "--cert", tier.pki.clientCertificatePath,
                "--key", tier.pki.clientKeyPath,
            ])
        #expect(info.status == 200 && info.served == "client-certificate", "\(info.stderr)")
        let foreign = try await curl(
            url, ["--cacert", tier.caBundlePath, "--cert-type", "P12"],
            config: [quoted("cert", "\(tier.pki.otherCAClientP12Path):\(tier.pki.p12Password)")])
        #expect(foreign.status == 400 && foreign.served == nil, "\(foreign.stderr)")
    }

    @Test func pkcs12FilesAreWhatTheirNamesSay() async throws {
        let tier = try await WebTier.shared()
        let env = Subprocess.environment(["P12PASS": tier.pki.p12Password])
        func dump(_ path: String, _ extra: [String] = []) async throws -> SubprocessResult {
            try await Subprocess.run(
                "openssl", ["pkcs12", "-in", path, "-nodes", "-passin", "env:P12PASS"] + extra, environment: env)
        }
        let modern = try await dump(tier.pki.clientP12Path)
        #expect(modern.status == 0 && modern.stdout.contains("PRIVATE KEY") && modern.stdout.contains("CN = alice"))
        // The legacy file needs OpenSSL 3's legacy provider.
        let legacyDefault = try await dump(tier.pki.legacyClientP12Path)
        #expect(legacyDefault.status != 0)
        let legacy = try await dump(tier.pki.legacyClientP12Path, ["-legacy"])
        #expect(legacy.status == 0 && legacy.stdout.contains("PRIVATE KEY"), "\(legacy.stderr)")
        let certificateOnly = try await dump(tier.pki.certificateOnlyP12Path)
        #expect(
            certificateOnly.status == 0 && certificateOnly.stdout.contains("BEGIN CERTIFICATE")
                && !certificateOnly.stdout.contains("PRIVATE KEY"))
        let foreign = try await dump(tier.pki.otherCAClientP12Path)
        #expect(foreign.status == 0 && foreign.stdout.contains("portal-auth other CA"))
    }

    @Test func basicNeedsThePassword() async throws {
        let tier = try await WebTier.shared()
        let url = tier.basicURL.appendingPathComponent("data.json")
        let anonymous = try await curl(url, ["--cacert", tier.caBundlePath])
        #expect(anonymous.status == 401)
        #expect(anonymous.headers.contains("WWW-Authenticate: Basic realm=\"\(tier.basicRealm)\""))
        let wrong = try await curl(
            url, ["--cacert", tier.caBundlePath], config: [quoted("user", "\(tier.userName):nope")])
        #expect(wrong.status == 401)
        let right = try await curl(
            url, ["--cacert", tier.caBundlePath], config: [quoted("user", "\(tier.userName):\(tier.basicPassword)")])
        #expect(right.status == 200 && right.served == "basic", "\(right.stderr)")
        // The plain-http block asks for Basic too (a client must refuse to answer it).
        let plain = try await curl(tier.basicPlainURL.appendingPathComponent("data.json"))
        #expect(tier.basicPlainURL.scheme == "http" && plain.status == 401)
        #expect(plain.headers.contains("WWW-Authenticate: Basic"))
        let plainRight = try await curl(
            tier.basicPlainURL.appendingPathComponent("arcgis/rest/info"),
            config: [quoted("user", "\(tier.userName):\(tier.basicPassword)")])
        #expect(plainRight.status == 200 && plainRight.served == "basic-plain")
    }

    @Test func digestNeedsThePassword() async throws {
        let tier = try await WebTier.shared()
        let url = tier.digestURL.appendingPathComponent("data.json")
        let anonymous = try await curl(url, ["--cacert", tier.caBundlePath])
        #expect(anonymous.status == 401)
        #expect(anonymous.headers.contains("WWW-Authenticate: Digest realm=\"\(tier.digestRealm)\""))
        let wrong = try await curl(
            url, ["--cacert", tier.caBundlePath, "--digest"], config: [quoted("user", "\(tier.userName):nope")])
        #expect(wrong.status == 401)
        let right = try await curl(
            url, ["--cacert", tier.caBundlePath, "--digest"],
            config: [quoted("user", "\(tier.userName):\(tier.digestPassword)")])
        #expect(right.status == 200 && right.served == "digest", "\(right.stderr)")
    }

    @Test func negotiateNeedsAKerberosTicket() async throws {
        let tier = try await WebTier.shared()
        let url = tier.negotiateURL.appendingPathComponent("data.json")
        #expect(tier.negotiateURL.host == "localhost")
        // A cache of its own, so that no other test's kinit/kdestroy interferes.
        let cache = tier.newCredentialCache()
        let env = tier.kerberosEnvironment(credentialCache: cache)
        let without = try await curl(url, ["--cacert", tier.caBundlePath, "--negotiate", "-u", ":"], environment: env)
        #expect(without.status == 401)
        #expect(without.headers.contains("WWW-Authenticate: Negotiate"))
        #expect(!without.headers.contains("Basic"))

        try tier.kinit(user: tier.userName, password: tier.kerberosPassword, credentialCache: cache)
        let klist = try await Subprocess.run("klist", [], environment: Subprocess.environment(env))
        #expect(klist.stdout.contains(tier.kerberosPrincipal))
        let with = try await curl(url, ["--cacert", tier.caBundlePath, "--negotiate", "-u", ":"], environment: env)
        #expect(with.status == 200 && with.served == "negotiate", "\(with.stderr)\n\(with.headers)")
        let serviceTicket = try await Subprocess.run("klist", [], environment: Subprocess.environment(env))
        #expect(serviceTicket.stdout.contains(tier.servicePrincipal))

        try tier.kdestroy(credentialCache: cache)
        let after = try await curl(url, ["--cacert", tier.caBundlePath, "--negotiate", "-u", ":"], environment: env)
        #expect(after.status == 401)
        #expect(throws: (any Error).self) {
            try tier.kinit(user: tier.userName, password: "wrong", credentialCache: cache)
        }
    }

    @Test func proxyBlocksForwardBehindTheirFront() async throws {
        let tier = try await WebTier.shared()
        // The backend here is the tier's own self-signed block (a test would pass the emulator).
        let proxy = try await tier.addProxy(to: tier.selfSignedURL, front: .basic)
        let url = proxy.appendingPathComponent("arcgis/rest/info")
        let anonymous = try await curl(url, ["--cacert", tier.caBundlePath])
        #expect(anonymous.status == 401)
        let right = try await curl(
            url, ["--cacert", tier.caBundlePath], config: [quoted("user", "\(tier.userName):\(tier.basicPassword)")])
        #expect(right.status == 200 && right.served == "self-signed", "\(right.stderr)")
        #expect(right.headers.contains("X-Served-By: proxy-basic"))
        let open = try await tier.addProxy(to: tier.basicPlainURL, front: .open)
        let forwarded = try await curl(
            open.appendingPathComponent("data.json"), ["--cacert", tier.caBundlePath],
            config: [quoted("user", "\(tier.userName):\(tier.basicPassword)")])
        #expect(forwarded.status == 200 && forwarded.served == "basic-plain", "\(forwarded.stderr)")
    }
}
