import Foundation
import PortalAuthCertificate
import PortalAuthPassword
import PortalAuthServerTrust
import TestSupport
import Testing

@testable import PortalAuth

/// A password provider that counts its calls.
final class CountingNetworkPasswordProvider: NetworkPasswordProvider {
    let username: String
    let password: String
    private let count = Locked(0)
    init(username: String = "alice", password: String) {
        self.username = username
        self.password = password
    }
    var calls: Int { count.withLock { $0 } }
    func usernameAndPassword(
        for challenge: NetworkAuthenticationChallenge
    ) async throws -> (username: String, password: String)? {
        count.withLock { $0 += 1 }
        return (username, password)
    }
}

/// A trust decider with a fixed answer that records what it was shown.
final class RecordingTrustDecider: ServerTrustDecider {
    let answer: Bool
    private let shown = Locked<[ServerCertificateReport]>([])
    init(_ answer: Bool) { self.answer = answer }
    var reports: [ServerCertificateReport] { shown.withLock { $0 } }
    func shouldTrust(_ report: ServerCertificateReport) async throws -> Bool {
        shown.withLock { $0.append(report) }
        return answer
    }
}

/// Everything against the real web tier: nginx (self-signed TLS, client certificates, Basic),
/// Apache (Digest, Negotiate) and an MIT Kerberos KDC, all on loopback, with credentials in the
/// real keyring. Serialized: the tests share the tier's hosts and their keyring items.
@Suite("Network credentials against nginx, Apache and a KDC", .serialized)
struct NetworkCredentialTests {
    let tier: WebTier

    init() async throws {
        tier = try await WebTier.shared()
    }

    /// A manager over the real keyring, with the web tier's CA trusted and the given plugins.
    func makeManager(
        _ handlers: [any AuthenticationChallengeHandler], trustTestCA: Bool = true
    ) -> AuthenticationManager {
        let manager = AuthenticationManager(
            backend: KeyringCredentialBackend(),
            transport: CurlTransport(
                configuration: TransportConfiguration(caBundlePath: trustTestCA ? tier.caBundlePath : nil, timeout: 30))
        )
        // Stored credentials of every kind are read back, as a new process would.
        manager.networkCredentialStore.register(PasswordCredential.self)
        manager.networkCredentialStore.register(CertificateCredential.self)
        manager.networkCredentialStore.register(ServerTrustCredential.self)
        for handler in handlers { manager.register(handler) }
        return manager
    }

    /// What the keyring holds for a host, read by a fresh store (no cache).
    func stored(_ url: URL) async throws -> [any NetworkCredential] {
        let store = NetworkCredentialStore(backend: KeyringCredentialBackend())
        store.register(PasswordCredential.self)
        store.register(CertificateCredential.self)
        store.register(ServerTrustCredential.self)
        return try await store.credentials(for: try ServerContext.host(of: url))
    }

    func forget(_ url: URL) async throws {
        try await NetworkCredentialStore(backend: KeyringCredentialBackend()).remove(try ServerContext.host(of: url))
    }

    /// Forgets what the keyring holds for the hosts of `urls`, runs `body`, and forgets them again,
    /// awaited, whether `body` returns or throws: no item outlives the test.
    func withForgotten(_ urls: URL..., body: () async throws -> Void) async throws {
        for url in urls { try await forget(url) }
        try await withResource(urls, release: { for url in $0 { try? await forget(url) } }) { _ in try await body() }
    }

    func data(_ base: URL) -> URL { base.appendingPathComponent("data.json") }

    func served(_ response: ArcGISResponse) -> String? { response.json?["served"]?.stringValue }

    // MARK: - Server trust (nginx with a self-signed certificate)

    @Test func aSelfSignedServerIsRefusedWithItsReasonAndNothingIsStored() async throws {
        try await forget(tier.selfSignedURL)
        let error = await expectPortalAuthError(.untrustedServer) {
            try await makeManager([ServerTrustHandler()]).send(ArcGISRequest(url: data(tier.selfSignedURL)))
        }
        #expect(error?.message.contains("self-signed") == true)
        let target = tier.selfSignedURL
        #expect(error?.remedy == .trustServer(host: try #require(target.host()), port: target.port ?? 443))
        #expect(try await stored(tier.selfSignedURL).isEmpty)
    }

    @Test func trustingPinsTheKeyForThatHostAndPortOnly() async throws {
        try await withRotatingServer {
            try await withForgotten(tier.selfSignedURL, tier.rotatingSelfSignedURL) {
                let decider = RecordingTrustDecider(true)
                let response = try await makeManager([ServerTrustHandler(decider: decider)]).send(
                    ArcGISRequest(url: data(tier.selfSignedURL)))
                #expect(served(response) == "self-signed")
                // The decider saw the certificate, why it failed, and its fingerprint as openssl writes it.
                #expect(decider.reports.count == 1)
                #expect(decider.reports.first?.failure == .selfSigned)
                #expect(decider.reports.first?.certificate.sha256Fingerprint == tier.selfSignedFingerprint)

                // In the keyring: the pin of that server's key, used by a new manager without asking.
                let trusts = try await stored(tier.selfSignedURL).compactMap { $0 as? ServerTrustCredential }
                #expect(trusts.count == 1)
                #expect(trusts.first?.certificate.publicKeyPin == tier.selfSignedPublicKeyPin)
                let again = try await makeManager([ServerTrustHandler()]).send(
                    ArcGISRequest(url: data(tier.selfSignedURL)))
                #expect(served(again) == "self-signed")

                // Another port on the same host is not covered by the pin.
                await expectPortalAuthError(.untrustedServer) {
                    try await makeManager([ServerTrustHandler()]).send(
                        ArcGISRequest(url: data(tier.rotatingSelfSignedURL)))
                }
                // Nor is the same port under another host name.
                var components = URLComponents(url: tier.selfSignedURL, resolvingAgainstBaseURL: false)!
                components.host = components.host == "localhost" ? "127.0.0.1" : "localhost"
                await expectPortalAuthError(.untrustedServer) {
                    try await makeManager([ServerTrustHandler()]).send(ArcGISRequest(url: data(components.url!)))
                }
            }
        }
    }

    @Test func aRefusedTrustStoresNothing() async throws {
        try await forget(tier.selfSignedURL)
        let decider = RecordingTrustDecider(false)
        await expectPortalAuthError(.cancelled) {
            try await makeManager([ServerTrustHandler(decider: decider)]).send(
                ArcGISRequest(url: data(tier.selfSignedURL)))
        }
        #expect(decider.reports.count == 1)
        #expect(try await stored(tier.selfSignedURL).isEmpty)
    }

    @Test func aTrustedServerWhoseKeyChangedFailsLoudlyNamingBothFingerprints() async throws {
        try await withRotatingServer {
            try await withForgotten(tier.rotatingSelfSignedURL) {
                let old = tier.rotatingSelfSignedFingerprint
                // The same manager (one long-lived process) trusts the server, then sees its key change.
                let decider = RecordingTrustDecider(true)
                let manager = makeManager([ServerTrustHandler(decider: decider)])
                _ = try await manager.send(ArcGISRequest(url: data(tier.rotatingSelfSignedURL)))
                #expect(decider.reports.count == 1)
                let new = try await tier.rotateSelfSignedCertificate()
                #expect(new != old)
                // nginx's old workers finish gracefully: wait until every new handshake shows the new key
                // (and they have closed the idle connection this manager reused).
                var streak = 0
                // (A hang's bound, 5 minutes: a reload on a loaded machine is slow.)
                for _ in 0..<3000 where streak < 5 {
                    streak =
                        (try? WebTier.servedFingerprint(port: tier.rotatingSelfSignedURL.port!)) == new ? streak + 1 : 0
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(streak >= 5)

                // The decider, which would trust anything, is not asked again: a changed key is never re-trusted silently.
                let error = await expectPortalAuthError(.untrustedServer) {
                    try await manager.send(ArcGISRequest(url: data(tier.rotatingSelfSignedURL)))
                }
                #expect(decider.reports.count == 1)
                // Nor by a new process.
                let fresh = RecordingTrustDecider(true)
                let again = await expectPortalAuthError(.untrustedServer) {
                    try await makeManager([ServerTrustHandler(decider: fresh)]).send(
                        ArcGISRequest(url: data(tier.rotatingSelfSignedURL)))
                }
                #expect(again?.message.contains(old) == true && again?.message.contains(new) == true)
                #expect(fresh.reports.isEmpty)
                #expect(error?.message.contains(old) == true)
                #expect(error?.message.contains(new) == true)
                let target = tier.rotatingSelfSignedURL
                #expect(error?.remedy == .trustServerAgain(host: try #require(target.host()), port: target.port ?? 443))
                #expect(again == error)
                // The trusted key is still the old one.
                let trusts = try await stored(tier.rotatingSelfSignedURL).compactMap { $0 as? ServerTrustCredential }
                #expect(trusts.map(\.certificate.sha256Fingerprint) == [old])
            }
        }
    }

    @Test func aVerifyingServerReportsNoFailure() async throws {
        let transport = CurlTransport(configuration: TransportConfiguration(caBundlePath: tier.caBundlePath))
        let report = try await transport.serverCertificate(host: tier.basicURL.host()!, port: tier.basicURL.port!)
        #expect(report.failure == nil)
        #expect(report.certificate.issuer.contains("CN="))
        let untrusted = try await CurlTransport().serverCertificate(
            host: tier.basicURL.host()!, port: tier.basicURL.port!)
        #expect(untrusted.failure == .unknownCA)
    }

    /// An expired certificate and one for another name, each served by `openssl s_server`.
    @Test(arguments: [("expired", ServerTrustFailure.expired), ("wrong-host", ServerTrustFailure.wrongHost)])
    func theChallengeSaysWhyACertificateDoesNotVerify(_ variant: String, _ reason: ServerTrustFailure) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trust-\(variant)-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names =
            variant == "expired" ? "subjectAltName=DNS:localhost,IP:127.0.0.1" : "subjectAltName=DNS:other.example"
        try names.write(toFile: "\(dir)/ext", atomically: true, encoding: .utf8)
        for step in [
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/k.pem", "-out", "\(dir)/r.csr", "-subj",
                "/CN=\(variant)",
            ],
            [
                "x509", "-req", "-in", "\(dir)/r.csr", "-CA", tier.pki.caCertificatePath, "-CAkey", tier.pki.caKeyPath,
                "-CAcreateserial",
                "-CAserial", "\(dir)/serial", "-out", "\(dir)/c.pem", "-days", variant == "expired" ? "-1" : "2",
                "-extfile", "\(dir)/ext",
            ],
        ] {
            let r = try await Subprocess.run("/usr/bin/openssl", step, timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
        }
        try await withChildProcess(
            "/usr/bin/openssl",
            ["s_server", "-accept", "127.0.0.1:0", "-cert", "\(dir)/c.pem", "-key", "\(dir)/k.pem", "-www"]
        ) { server in
            var port: Int?
            while port == nil, let line = await server.nextLine(timeout: 120) {
                if line.hasPrefix("ACCEPT "), let colon = line.lastIndex(of: ":") {
                    port = Int(line[line.index(after: colon)...])
                }
            }
            let listening = try #require(port)
            let url = URL(string: "https://127.0.0.1:\(listening)/data.json")!
            let error = await expectPortalAuthError(.untrustedServer) {
                try await makeManager([ServerTrustHandler()]).send(ArcGISRequest(url: url))
            }
            #expect(error?.message.contains("(\(reason.rawValue))") == true)
            let report = try await CurlTransport(configuration: TransportConfiguration(caBundlePath: tier.caBundlePath))
                .serverCertificate(host: "127.0.0.1", port: listening)
            #expect(report.failure == reason)
            #expect(report.certificate.subject == "CN=\(variant)")
            #expect(report.certificate.isExpired() == (variant == "expired"))
        }
    }

    @Test func fingerprintsAreAcceptedWithOrWithoutColonsInEitherCase() throws {
        let canonical = tier.selfSignedFingerprint
        #expect(CertificateSummary.normalizedFingerprint(canonical) == canonical)
        #expect(
            CertificateSummary.normalizedFingerprint(canonical.replacingOccurrences(of: ":", with: "").lowercased())
                == canonical)
        #expect(CertificateSummary.normalizedFingerprint("sha256 Fingerprint=" + canonical) == canonical)
        #expect(CertificateSummary.normalizedFingerprint(String(canonical.dropLast(3))) == nil)
        #expect(
            CertificateSummary.normalizedFingerprint(canonical.replacingOccurrences(of: "A", with: "G"))
                == (canonical.contains("A") ? nil : canonical))
    }

    // MARK: - Client certificates (nginx with ssl_verify_client on)

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test func pkcs12FilesOpenOrSayPreciselyWhyNot() async throws {
        let pki = tier.pki
        let modern = try PKCS12Bundle(bytes: try bytes(pki.clientP12Path), password: pki.p12Password)
        #expect(modern.certificate.subject.contains("CN="))
        #expect(!modern.certificate.isExpired())
        // Made with -legacy (RC2/3DES): opens through OpenSSL's legacy provider.
        let legacy = try PKCS12Bundle(bytes: try bytes(pki.legacyClientP12Path), password: pki.p12Password)
        #expect(legacy.certificate.sha256Fingerprint == modern.certificate.sha256Fingerprint)

        let wrong = await expectPortalAuthError(.authenticationFailed) {
            try PKCS12Bundle(bytes: try bytes(pki.clientP12Path), password: "not-the-password", path: "alice.p12")
        }
        #expect(wrong?.remedy == .provide(.password))
        #expect(wrong?.message.contains("alice.p12") == true)
        #expect(wrong?.message.contains("not-the-password") == false)
        // For a host, the remedy is another certificate (or password) for that host.
        let host = try ServerContext("https://pki.example.com:8443")
        let forHost = await expectPortalAuthError(.authenticationFailed) {
            try CertificateCredential(host: host, pkcs12: try bytes(pki.clientP12Path), password: "not-the-password")
        }
        #expect(forHost?.remedy == .provideClientCertificate(host: "pki.example.com", port: 8443))
        var corrupt = try bytes(pki.clientP12Path)
        corrupt.replaceSubrange(8..<40, with: [UInt8](repeating: 0x5A, count: 32))
        let damaged = await expectPortalAuthError(.invalidArgument) {
            try PKCS12Bundle(bytes: corrupt, password: pki.p12Password)
        }
        #expect(damaged?.remedy == PortalAuthError.Remedy.none)
        #expect(damaged?.message.hasPrefix("the PKCS#12 data is not a readable PKCS#12 file") == true)
        let noKey = await expectPortalAuthError(.invalidArgument) {
            try PKCS12Bundle(bytes: try bytes(pki.certificateOnlyP12Path), password: pki.p12Password)
        }
        #expect(noKey?.remedy == PortalAuthError.Remedy.none)
    }

    @Test func aClientCertificateIsPresentedOnDemandAndStoredOnceAccepted() async throws {
        try await withForgotten(tier.clientCertificateURL) {
            // Without a certificate: the server's demand, whose remedy is a certificate for the host.
            let demand = await expectPortalAuthError(.authenticationRequired) {
                try await makeManager([CertificateHandler()]).send(ArcGISRequest(url: data(tier.clientCertificateURL)))
            }
            let host = try ServerContext.host(of: tier.clientCertificateURL)
            #expect(demand?.remedy == .provideClientCertificate(host: host.host, port: host.port))
            #expect(demand?.message.contains("--") == false)

            let provider = try PKCS12FileProvider(
                path: tier.pki.legacyClientP12Path, password: tier.pki.p12Password, hosts: [tier.clientCertificateURL])
            let response = try await makeManager([CertificateHandler(provider: provider)]).send(
                ArcGISRequest(url: data(tier.clientCertificateURL)))
            #expect(served(response) == "client-certificate")
            let certificates = try await stored(tier.clientCertificateURL).compactMap { $0 as? CertificateCredential }
            #expect(certificates.count == 1)
            // The bytes themselves are kept, not a path.
            #expect(certificates.first?.pkcs12 == (try bytes(tier.pki.legacyClientP12Path)))
            // A new manager presents the stored certificate without a provider.
            let again = try await makeManager([CertificateHandler()]).send(
                ArcGISRequest(url: data(tier.clientCertificateURL)))
            #expect(served(again) == "client-certificate")
        }
    }

    @Test func aCertificateFromAnotherCAIsRefusedAndNothingIsStored() async throws {
        try await forget(tier.clientCertificateURL)
        let provider = try PKCS12FileProvider(
            path: tier.pki.otherCAClientP12Path, password: tier.pki.p12Password, hosts: [tier.clientCertificateURL])
        let error = await expectPortalAuthError(.authenticationFailed) {
            try await makeManager([CertificateHandler(provider: provider)]).send(
                ArcGISRequest(url: data(tier.clientCertificateURL)))
        }
        #expect(error?.message.contains("refused the client certificate") == true)
        let host = try ServerContext.host(of: tier.clientCertificateURL)
        #expect(error?.remedy == .provideClientCertificate(host: host.host, port: host.port))
        #expect(try await stored(tier.clientCertificateURL).isEmpty)
    }

    @Test func aCertificateIsPresentedOnlyToTheHostItIsRegisteredFor() async throws {
        var other = URLComponents(url: tier.clientCertificateURL, resolvingAgainstBaseURL: false)!
        other.host = other.host == "localhost" ? "127.0.0.1" : "localhost"
        try await withForgotten(tier.clientCertificateURL, other.url!) {
            let manager = makeManager([CertificateHandler()])
            let credential = try CertificateCredential(
                host: try ServerContext.host(of: tier.clientCertificateURL),
                pkcs12: try bytes(tier.pki.clientP12Path), password: tier.pki.p12Password)
            try await manager.signIn(with: credential, verifying: data(tier.clientCertificateURL))
            #expect(try await stored(tier.clientCertificateURL).count == 1)
            // The same server under another name is another host: the certificate is not presented.
            await expectPortalAuthError(.authenticationRequired) {
                try await manager.send(ArcGISRequest(url: data(other.url!)))
            }
            // A provider gives its certificate to its own hosts only.
            let provider = try PKCS12FileProvider(
                path: tier.pki.clientP12Path, password: tier.pki.p12Password, hosts: [tier.clientCertificateURL])
            await expectPortalAuthError(.authenticationRequired) {
                try await makeManager([CertificateHandler(provider: provider)]).send(
                    ArcGISRequest(url: data(other.url!)))
            }
            // A credential for one host cannot be registered with another host's URL.
            await expectPortalAuthError(.invalidArgument) {
                try await manager.signIn(with: credential, verifying: data(other.url!))
            }
            #expect(try await stored(other.url!).isEmpty)
        }
    }

    // MARK: - HTTP passwords (nginx Basic, Apache Digest and Negotiate)

    @Test func basicOverHTTPSAsksOnceAndStoresThePasswordOnceAccepted() async throws {
        try await withForgotten(tier.basicURL) {
            let provider = CountingNetworkPasswordProvider(password: tier.basicPassword)
            let manager = makeManager([PasswordHandler(provider: provider)])
            // Concurrent requests share one prompt.
            let responses = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<8 {
                    group.addTask { served(try await manager.send(ArcGISRequest(url: data(tier.basicURL)))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses == Array(repeating: "basic", count: 8))
            #expect(provider.calls == 1)
            let passwords = try await stored(tier.basicURL).compactMap { $0 as? PasswordCredential }
            #expect(passwords.map(\.username) == ["alice"])
            #expect(passwords.first?.schemes == [.basic])
            #expect(passwords.first?.realm == tier.basicRealm)
            // A new manager uses the stored password without asking.
            let silent = CountingNetworkPasswordProvider(password: "unused")
            #expect(
                served(
                    try await self.makeManager([PasswordHandler(provider: silent)]).send(
                        ArcGISRequest(url: data(tier.basicURL)))) == "basic")
            #expect(silent.calls == 0)

            // clearCredentialStores removes it, and the same manager asks again rather than reusing it.
            #expect(try await manager.clearCredentialStores() >= 1)
            #expect(try await stored(tier.basicURL).isEmpty)
            #expect(served(try await manager.send(ArcGISRequest(url: data(tier.basicURL)))) == "basic")
            #expect(provider.calls == 2)
        }
    }

    @Test func aWrongPasswordIsReportedOnceAndNothingIsStoredOrLost() async throws {
        try await withForgotten(tier.basicURL) {
            let provider = CountingNetworkPasswordProvider(password: "wrong-password")
            let error = await expectPortalAuthError(.authenticationFailed) {
                try await makeManager([PasswordHandler(provider: provider)]).send(
                    ArcGISRequest(url: data(tier.basicURL)))
            }
            #expect(error?.message.contains("wrong") == true)
            #expect(error?.message.contains("wrong-password") == false)
            #expect(provider.calls == 1)
            #expect(try await stored(tier.basicURL).isEmpty)

            // A stored, working password stays when a new one is refused.
            let host = try ServerContext.host(of: tier.basicURL)
            let manager = makeManager([])
            try await manager.signIn(
                with: try PasswordCredential(
                    host: host, realm: nil, username: "alice", password: tier.basicPassword, schemes: [.basic]),
                verifying: data(tier.basicURL))
            await expectPortalAuthError(.authenticationFailed) {
                try await manager.signIn(
                    with: try PasswordCredential(
                        host: host, realm: nil, username: "alice", password: "wrong-password", schemes: [.basic]),
                    verifying: data(tier.basicURL))
            }
            let kept = try await stored(tier.basicURL).compactMap { $0 as? PasswordCredential }
            #expect(kept.map(\.password) == [tier.basicPassword])
        }
    }

    @Test func basicOverPlainHTTPIsRefusedBeforeAnyoneIsAsked() async throws {
        try await withForgotten(tier.basicPlainURL) {
            let provider = CountingNetworkPasswordProvider(password: tier.basicPassword)
            let error = await expectPortalAuthError(.insecureTransport) {
                try await makeManager([PasswordHandler(provider: provider)]).send(
                    ArcGISRequest(url: data(tier.basicPlainURL)))
            }
            #expect(error?.remedy == .allowBasicOverHTTP(host: try ServerContext.host(of: data(tier.basicPlainURL))))
            #expect(provider.calls == 0)
            #expect(try await stored(tier.basicPlainURL).isEmpty)
            // Allowed explicitly, it works.
            let allowed = try await makeManager([PasswordHandler(provider: provider, allowsBasicOverHTTP: true)]).send(
                ArcGISRequest(url: data(tier.basicPlainURL)))
            #expect(served(allowed) == "basic-plain")
        }
    }

    @Test func theHTTPAuthenticationOfferIsReadWithoutAPassword() async throws {
        let manager = makeManager([])
        let digest = try #require(try await manager.httpAuthenticationOffer(for: data(tier.digestURL)))
        #expect(digest.schemes == [.digest])
        #expect(digest.realm == tier.digestRealm)
        let basic = try #require(try await manager.httpAuthenticationOffer(for: data(tier.basicURL)))
        #expect(basic.schemes == [.basic])
        // Any other answer (here nginx's 400 for a missing client certificate): no offer.
        #expect(try await manager.httpAuthenticationOffer(for: data(tier.clientCertificateURL)) == nil)
    }

    @Test func digestWithApache() async throws {
        try await withForgotten(tier.digestURL) {
            let provider = CountingNetworkPasswordProvider(password: tier.digestPassword)
            let response = try await makeManager([PasswordHandler(provider: provider)]).send(
                ArcGISRequest(url: data(tier.digestURL)))
            #expect(served(response) == "digest")
            let passwords = try await stored(tier.digestURL).compactMap { $0 as? PasswordCredential }
            #expect(passwords.first?.schemes == [.digest])
            #expect(passwords.first?.realm == tier.digestRealm)
            // The wrong password: one attempt, a clear message, the stored one intact.
            await expectPortalAuthError(.authenticationFailed) {
                try await makeManager([]).signIn(
                    with: try PasswordCredential(
                        host: try ServerContext.host(of: tier.digestURL), realm: tier.digestRealm, username: "alice",
                        password: "nope", schemes: [.digest]),
                    verifying: data(tier.digestURL))
            }
            #expect(
                try await stored(tier.digestURL).compactMap { ($0 as? PasswordCredential)?.password } == [
                    tier.digestPassword
                ])
        }
    }

    // MARK: - Negotiate in this process (libcurl's GSS-API reads KRB5_CONFIG and KRB5CCNAME here)

    @Test func negotiateWithATicketAndThenWithAPassword() async throws {
        try await withForgotten(tier.negotiateURL) {
            setenv("KRB5_CONFIG", tier.krb5ConfigPath, 1)
            setenv("KRB5RCACHETYPE", "none", 1)
            let cache = tier.newCredentialCache()
            setenv("KRB5CCNAME", cache, 1)

            // With a ticket from kinit: used without asking anyone.
            try tier.kinit(credentialCache: cache)
            #expect(KerberosTicket.current() == tier.kerberosPrincipal)
            let unused = CountingNetworkPasswordProvider(password: "unused")
            let withTicket = try await makeManager([PasswordHandler(provider: unused)]).send(
                ArcGISRequest(url: data(tier.negotiateURL)))
            #expect(served(withTicket) == "negotiate")
            #expect(unused.calls == 0)
            // The user's own ticket answered the request: nothing is stored in the keyring (the ticket
            // is the user's business, kinit and kdestroy), and the next request uses it again.
            #expect(try await stored(tier.negotiateURL).isEmpty)
            let again = try await makeManager([PasswordHandler(provider: unused)]).send(
                ArcGISRequest(url: data(tier.negotiateURL)))
            #expect(served(again) == "negotiate")
            #expect(unused.calls == 0)
            #expect(try await stored(tier.negotiateURL).isEmpty)
            // Registered on purpose (portal-auth login --kerberos), it is stored.
            try await makeManager([]).signIn(
                with: PasswordCredential.kerberosTicket(
                    host: try ServerContext.host(of: tier.negotiateURL), realm: nil, principal: tier.kerberosPrincipal),
                verifying: data(tier.negotiateURL))
            let ticketCredential = try await stored(tier.negotiateURL).compactMap { $0 as? PasswordCredential }
            #expect(ticketCredential.first?.usesKerberosTicket == true)
            #expect(ticketCredential.first?.password == "")
            try await forget(tier.negotiateURL)

            // No ticket: the wrong password is refused by the KDC, nothing stored...
            try tier.kdestroy(credentialCache: cache)
            #expect(KerberosTicket.current() == nil)
            let wrong = CountingNetworkPasswordProvider(password: "not-the-kerberos-password")
            let refused = await expectPortalAuthError(.authenticationFailed) {
                try await makeManager([PasswordHandler(provider: wrong)]).send(
                    ArcGISRequest(url: data(tier.negotiateURL)))
            }
            #expect(refused?.message.contains("KDC refused the password") == true)
            #expect(try await stored(tier.negotiateURL).isEmpty)

            // ...and the right one gets a ticket in memory, then the page.
            let provider = CountingNetworkPasswordProvider(password: tier.kerberosPassword)
            let response = try await makeManager([PasswordHandler(provider: provider)]).send(
                ArcGISRequest(url: data(tier.negotiateURL)))
            #expect(served(response) == "negotiate")
            #expect(provider.calls == 1)
            #expect(
                try await stored(tier.negotiateURL).compactMap { ($0 as? PasswordCredential)?.password } == [
                    tier.kerberosPassword
                ])
            // The process's environment is unchanged: the ticket lives in the HTTP thread's memory cache.
            #expect(String(cString: getenv("KRB5CCNAME")) == cache)
            // The user's own cache was never written.
            let klist = try await Subprocess.run(
                "/usr/bin/klist", ["-s"], stdin: nil,
                environment: Subprocess.environment(tier.kerberosEnvironment(credentialCache: cache)), timeout: 30)
            #expect(klist.status != 0)
        }
    }
}
