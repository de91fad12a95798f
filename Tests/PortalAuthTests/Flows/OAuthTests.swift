import Foundation
import Logging
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalEmulator
import TestSupport
import Testing

@testable import PortalAuth

/// The repository's Tests/Clients folder (the scripted browser lives there).
let testClientsFolder = RealClients.scripts

/// A user agent that drives Tests/Clients/scripted-browser.py (a real HTTP client submitting the
/// emulator's real sign-in form) and reads the out-of-band code it scrapes.
final class ScriptedBrowser: AuthorizationUserAgent {
    let environment: [String: String]
    let outFile: String
    private let launches = Locked<[Task<SubprocessResult, any Error>]>([])
    private let launched: AsyncStream<Task<SubprocessResult, any Error>>
    private let announce: AsyncStream<Task<SubprocessResult, any Error>>.Continuation
    private let ca: String

    /// The browsers launched and out-of-band files made for each emulator (by its CA bundle's
    /// path), until ``finish(ca:)``: a browser outlives `present`, which returns before the
    /// browser comes back to the loopback listener.
    private static let started = Locked<[String: (browsers: [Task<SubprocessResult, any Error>], files: [String])]>([:])

    /// Waits for every browser launched for the emulator whose CA bundle is `ca` and removes
    /// their out-of-band files: the fixtures call it before their emulator stops.
    static func finish(ca: String) async {
        let (browsers, files) = started.withLock { $0.removeValue(forKey: ca) } ?? ([], [])
        for browser in browsers { _ = try? await browser.value }
        for file in files { try? FileManager.default.removeItem(atPath: file) }
    }

    /// Waits for the first browser to be started, then for it to finish.
    func firstBrowserFinished() async throws -> SubprocessResult? {
        for await task in launched { return try await task.value }
        return nil
    }

    init(
        ca: String, action: String = "approve", password: String = "alice-pass-123", state: String? = nil,
        log: String? = nil
    ) {
        outFile = FileManager.default.temporaryDirectory.appendingPathComponent("oob-\(UUID().uuidString)").path
        var env = [
            "SCRIPTED_BROWSER_CA": ca, "SCRIPTED_BROWSER_ACTION": action, "SCRIPTED_BROWSER_PASSWORD": password,
            "SCRIPTED_BROWSER_OOB_OUT": outFile,
        ]
        if let state { env["SCRIPTED_BROWSER_STATE"] = state }
        if let log { env["SCRIPTED_BROWSER_LOG"] = log }
        environment = env
        self.ca = ca
        let outFile = outFile
        Self.started.withLock { $0[ca, default: ([], [])].files.append(outFile) }
        (launched, announce) = AsyncStream.makeStream()
    }

    var presented: Int { launches.withLock { $0.count } }

    func present(_ url: URL, redirectURI: String) async throws {
        let env = Subprocess.environment(environment)
        let task = Task {
            try await Subprocess.run(
                "/usr/bin/python3", [testClientsFolder + "/scripted-browser.py", url.absoluteString], environment: env,
                timeout: 60)
        }
        launches.withLock { $0.append(task) }
        Self.started.withLock { $0[ca, default: ([], [])].browsers.append(task) }
        announce.yield(task)
    }

    func readPastedResponse(_ prompt: String) async throws -> String {
        let task = launches.withLock { $0.last }
        _ = try await task?.value
        return (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
    }
}

struct OAuthFixture {
    let emulator: PortalEmulator
    let manager: AuthenticationManager
    let transport: RecordingTransport
    let logs: LogCollector

    /// Starts an emulator, wires a manager with the OAuth plugins to it, runs `body`, and shuts
    /// the emulator down, awaited.
    @discardableResult
    static func with<T>(
        _ configure: (inout EmulatorConfiguration) -> Void = { _ in }, agent: (any AuthorizationUserAgent)? = nil,
        _ body: (OAuthFixture) async throws -> T
    ) async throws -> T {
        try await withEmulator(configuring: configure) { emulator in
            let logs = LogCollector()
            let transport = RecordingTransport(
                CurlTransport(
                    configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30)))
            let manager = AuthenticationManager(
                backend: MemoryCredentialBackend(), transport: transport, logger: logs.logger())
            manager.register(OAuthUserHandler(userAgent: agent ?? ScriptedBrowser(ca: emulator.caCertificatePath)))
            manager.register(OAuthApplicationHandler())
            let fixture = OAuthFixture(emulator: emulator, manager: manager, transport: transport, logs: logs)
            return try await withResource(
                fixture, release: { await ScriptedBrowser.finish(ca: $0.emulator.caCertificatePath) }, body)
        }
    }

    var portalContext: ServerContext { try! ServerContext(emulator.portalURL) }
    var communitySelf: URL { URL(string: emulator.portalURL + "/sharing/rest/community/self")! }
    var query: URL { URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query")! }
    func configuration(
        redirect: URL = OAuthUserConfiguration.defaultRedirectURL, clientID: String = "portal-auth-cli",
        timeout: TimeInterval = 60
    ) throws -> OAuthUserConfiguration {
        try OAuthUserConfiguration(
            portalURL: URL(string: emulator.portalURL)!, clientID: clientID, redirectURL: redirect, timeout: timeout)
    }

    /// An OAuth credential made from tokens the emulator issued directly.
    func seededCredential(accessLifetime: Int, refreshLifetime: Int) -> OAuthUserCredential {
        let tokens = emulator.issueOAuthTokens(
            username: "alice", clientID: "portal-auth-cli", accessLifetimeSeconds: accessLifetime,
            refreshLifetimeSeconds: refreshLifetime)
        return OAuthUserCredential(
            serverContext: portalContext, clientID: "portal-auth-cli",
            redirectURL: OAuthUserConfiguration.defaultRedirectURL,
            redirectURI: "http://127.0.0.1:1/oauth/callback", username: "alice",
            tokenInfo: TokenInfo(
                accessToken: tokens.accessToken,
                expirationDate: Date().addingTimeInterval(TimeInterval(accessLifetime)), isSSLRequired: true),
            refreshToken: tokens.refreshToken,
            refreshTokenExpirationDate: Date().addingTimeInterval(TimeInterval(refreshLifetime)))
    }
}

@Suite struct OAuthUserTests {
    @Test func loopbackSignInEndToEndThenRequests() async throws {
        try await OAuthFixture.with { f in
            let credential = try await OAuthUserCredential.credential(
                for: try f.configuration(), userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath),
                services: f.manager.services)
            #expect(credential.username == "alice")
            #expect(credential.redirectURI.hasPrefix("http://127.0.0.1:"))
            #expect(
                credential.refreshTokenExpirationDate.map { $0 > Date().addingTimeInterval(13 * 24 * 3600) } == true)
            try await f.manager.arcGISCredentialStore.add(credential)
            let me = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(me.json?["username"]?.stringValue == "alice")
            // A federated server token comes from the OAuth token, without another sign-in.
            let count = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect(count.json?["count"]?.doubleValue == 24)
            let counters = f.emulator.counters()
            #expect(counters.authorizationCodeGrants == 1)
            #expect(counters.serverTokenRequests == 1)
        }
    }

    @Test func outOfBandSignIn() async throws {
        try await OAuthFixture.with { f in
            let credential = try await OAuthUserCredential.credential(
                for: try f.configuration(redirect: URL(string: AuthorizationRedirect.outOfBandURI)!),
                userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath), services: f.manager.services)
            #expect(credential.username == "alice")
            #expect(credential.redirectURI == AuthorizationRedirect.outOfBandURI)
        }
    }

    @Test func aChallengeOnAConfiguredPortalSignsInThroughThePlugin() async throws {
        let agent = ScriptedBrowserBox()
        try await OAuthFixture.with(agent: agent) { f in
            agent.inner.withLock { $0 = ScriptedBrowser(ca: f.emulator.caCertificatePath) }
            let configured = AuthenticationManager(
                arcGISCredentialStore: f.manager.arcGISCredentialStore,
                networkCredentialStore: f.manager.networkCredentialStore, transport: f.transport)
            configured.register(OAuthUserHandler(configurations: [try f.configuration()], userAgent: agent))
            let results = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await configured.send(ArcGISRequest(url: f.communitySelf)).json?["username"]?.stringValue
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 == "alice" })
            #expect(f.emulator.counters().authorizationCodeGrants == 1)
        }
    }

    @Test func deniedConsentStoresNothing() async throws {
        try await OAuthFixture.with { f in
            let error = await expectPortalAuthError(.authenticationFailed) {
                try await OAuthUserCredential.credential(
                    for: try f.configuration(),
                    userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath, action: "deny"),
                    services: f.manager.services)
            }
            if case .oauth(let code, _)? = error?.cause {
                #expect(code == "access_denied")
            } else {
                Issue.record("no OAuth cause")
            }
            #expect(f.emulator.counters().authorizationCodeGrants == 0)
        }
    }

    @Test func aTamperedStateIsTurnedAwayAndTheSignInGoesOn() async throws {
        try await OAuthFixture.with { f in
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let browser = ScriptedBrowser(ca: f.emulator.caCertificatePath, state: "tamper", log: log)
            let configuration = try f.configuration(timeout: 300)
            let services = f.manager.services
            let signIn = Task {
                try await OAuthUserCredential.credential(for: configuration, userAgent: browser, services: services)
            }
            // The browser is answered (and so finishes) while the sign-in is still waiting.
            let finished = try await browser.firstBrowserFinished()
            #expect(finished?.status == 0)
            let seen = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(seen.contains("loopback answered 400"), "\(seen)")
            signIn.cancel()
            let error = await expectPortalAuthError(.cancelled) { _ = try await signIn.value }
            #expect(error?.message.contains("nothing was stored") == true)
            #expect(f.emulator.counters().authorizationCodeGrants == 0)
        }
    }

    @Test func aBrowserThatNeverComesBackTimesOut() async throws {
        try await OAuthFixture.with { f in
            let error = await expectPortalAuthError(.timedOut) {
                try await OAuthUserCredential.credential(
                    for: try f.configuration(timeout: 2),
                    userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath, action: "ignore"),
                    services: f.manager.services)
            }
            #expect(error?.remedy == .raiseLimit(.signInTimeout, value: 2))
        }
    }

    @Test func wrongVerifierAndExpiredCodeAreRefused() async throws {
        try await OAuthFixture.with { f in
            let endpoint = ArcGISOAuthTokenEndpoint(portal: f.portalContext)
            func authorize() async throws -> AuthorizationCodeGrant {
                try await AuthorizationCodeFlow.authorize(
                    AuthorizationCodeRequest(
                        authorizeURL: endpoint.authorizeURL, clientID: "portal-auth-cli", redirect: .defaultLoopback,
                        timeout: 60),
                    userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath), logger: f.manager.logger)
            }
            var grant = try await authorize()
            grant.codeVerifier = try PKCE().codeVerifier
            let wrong = await expectPortalAuthError(.arcGISError) {
                try await endpoint.requestToken(
                    grant.tokenParameters(clientID: "portal-auth-cli"), services: f.manager.services)
            }
            #expect(wrong.map(ArcGISOAuthTokenEndpoint.isRejectedGrant) == true)

            let expiring = try await authorize()
            f.emulator.expireAuthorizationCodes()
            await expectPortalAuthError(.arcGISError) {
                try await endpoint.requestToken(
                    expiring.tokenParameters(clientID: "portal-auth-cli"), services: f.manager.services)
            }

            // A code is single use.
            let once = try await authorize()
            _ = try await endpoint.requestToken(
                once.tokenParameters(clientID: "portal-auth-cli"), services: f.manager.services)
            await expectPortalAuthError(.arcGISError) {
                try await endpoint.requestToken(
                    once.tokenParameters(clientID: "portal-auth-cli"), services: f.manager.services)
            }
        }
    }

    @Test func anExpiringAccessTokenIsRefreshedBeforeUse() async throws {
        try await OAuthFixture.with { f in
            let seeded = f.seededCredential(accessLifetime: 120, refreshLifetime: 14 * 24 * 3600)
            try await f.manager.arcGISCredentialStore.add(seeded)
            let results = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await f.manager.send(ArcGISRequest(url: f.communitySelf)).json?["username"]?.stringValue
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 == "alice" })
            let counters = f.emulator.counters()
            #expect(counters.refreshTokenGrants == 1)
            #expect(counters.exchangeRefreshTokenGrants == 0)
            let stored = try #require(
                try await f.manager.arcGISCredentialStore.credential(for: f.portalContext) as? OAuthUserCredential)
            #expect(stored.tokenInfo.accessToken != seeded.tokenInfo.accessToken)
            #expect(stored.refreshToken == seeded.refreshToken)
            #expect(stored.tokenInfo.expirationDate.map { $0 > Date().addingTimeInterval(1000) } == true)
        }
    }

    @Test func aRefreshTokenCloseToExpiryIsExchanged() async throws {
        try await OAuthFixture.with { f in
            let seeded = f.seededCredential(accessLifetime: 60, refreshLifetime: 3600)
            try await f.manager.arcGISCredentialStore.add(seeded)
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(f.emulator.counters().exchangeRefreshTokenGrants == 1)
            let stored = try #require(
                try await f.manager.arcGISCredentialStore.credential(for: f.portalContext) as? OAuthUserCredential)
            #expect(stored.refreshToken != seeded.refreshToken)
            #expect(stored.refreshTokenExpirationDate.map { $0 > Date().addingTimeInterval(2 * 24 * 3600) } == true)
        }
    }

    /// Two renewals to last decided on one reading of the store (two `renew` runs at once): the
    /// first exchanges the refresh token, the second finds the exchange stored and uses it.
    @Test func renewingToLastACredentialAnotherRenewalReplacedExchangesOnce() async throws {
        try await OAuthFixture.with { f in
            let seeded = f.seededCredential(accessLifetime: 3600, refreshLifetime: 2 * 86_400)
            try await f.manager.arcGISCredentialStore.add(seeded)
            let read = try #require(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext))
            let first = try await f.manager.renewCredential(read, refused: true, lasting: true)
            #expect(f.emulator.counters().exchangeRefreshTokenGrants == 1)
            let second = try await f.manager.renewCredential(read, refused: true, lasting: true)
            #expect(f.emulator.counters().exchangeRefreshTokenGrants == 1)
            let renewed = try #require(first as? OAuthUserCredential)
            #expect(renewed.refreshToken != seeded.refreshToken)
            #expect((second as? OAuthUserCredential)?.refreshToken == renewed.refreshToken)
        }
    }

    @Test func aRejectedRefreshTokenLeadsToOneNewSignInNotALoop() async throws {
        let agent = ScriptedBrowserBox()
        try await OAuthFixture.with(agent: agent) { f in
            let browser = ScriptedBrowser(ca: f.emulator.caCertificatePath)
            agent.inner.withLock { $0 = browser }
            try await f.manager.arcGISCredentialStore.add(
                f.seededCredential(accessLifetime: 60, refreshLifetime: 14 * 24 * 3600))
            f.emulator.revokeAllRefreshTokens()
            f.emulator.expireAllTokens()
            let me = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(me.json?["username"]?.stringValue == "alice")
            let counters = f.emulator.counters()
            #expect(counters.authorizationCodeGrants == 1)
            #expect(browser.presented == 1)
        }
    }

    @Test func revokeReportAndSignOut() async throws {
        try await OAuthFixture.with { f in
            let seeded = f.seededCredential(accessLifetime: 1800, refreshLifetime: 14 * 24 * 3600)
            try await f.manager.arcGISCredentialStore.add(seeded)
            let reports = try await f.manager.revokeOAuthTokens()
            #expect(reports == [RevocationReport(serverContext: f.portalContext, username: "alice", outcome: .revoked)])
            #expect(f.emulator.isRevoked(seeded.refreshToken))
            #expect(f.emulator.isRevoked(seeded.tokenInfo.accessToken))
            #expect(f.emulator.counters().revokeRequests == 2)
            #expect(try await f.manager.clearCredentialStores() == 1)
        }
    }

    @Test func aRevocationThatCannotReachThePortalIsReportedAsFailed() async throws {
        // The CA file outlives the emulator, so what fails is the connection, not the CA bundle.
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: ca) }
        // The manager outlives the emulator (shut down, awaited, when the fixture's scope ends).
        let manager = try await OAuthFixture.with({ $0.caCertificatePath = ca }) { f in
            let seeded = f.seededCredential(accessLifetime: 1800, refreshLifetime: 14 * 24 * 3600)
            try await f.manager.arcGISCredentialStore.add(seeded)
            return f.manager
        }
        let reports = try await manager.revokeOAuthTokens()
        #expect(reports.count == 1)
        guard case .failed(let why) = reports.first?.outcome else {
            Issue.record("expected a failure, got \(reports)"); return
        }
        #expect(why.contains("127.0.0.1"))
    }

    @Test(arguments: [Fault.Kind.html, .malformedJSON, .http500])
    func aBrokenTokenEndpointIsAClearErrorAndStoresNothing(_ kind: Fault.Kind) async throws {
        try await OAuthFixture.with { f in
            f.emulator.inject(Fault(kind: kind, pathContains: "oauth2/token", count: nil, milliseconds: nil))
            do {
                _ = try await OAuthUserCredential.credential(
                    for: try f.configuration(), userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath),
                    services: f.manager.services)
                Issue.record("expected an error")
            } catch let error as PortalAuthError {
                #expect([.invalidResponse, .httpError].contains(error.code), "\(error.code) \(error.message)")
                #expect(error.message.contains("127.0.0.1:\(f.emulator.port)"))
                #expect(!error.message.contains("\n"))
            }
            #expect(try await f.manager.arcGISCredentialStore.allCredentials().isEmpty)
        }
    }

    @Test func debugLogsHoldNoSecrets() async throws {
        try await OAuthFixture.with { f in
            let credential = try await OAuthUserCredential.credential(
                for: try f.configuration(), userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath),
                services: f.manager.services)
            try await f.manager.arcGISCredentialStore.add(credential)
            let seeded = f.seededCredential(accessLifetime: 60, refreshLifetime: 3600)
            try await f.manager.arcGISCredentialStore.add(seeded)
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let renewed = try #require(
                try await f.manager.arcGISCredentialStore.credential(for: f.portalContext) as? OAuthUserCredential)
            let text = f.logs.text
            #expect(text.contains("refresh"))  // debug logging really happened
            for secret in [
                credential.tokenInfo.accessToken, credential.refreshToken, seeded.tokenInfo.accessToken,
                seeded.refreshToken,
                renewed.tokenInfo.accessToken, renewed.refreshToken, "alice-pass-123",
            ] {
                #expect(!text.contains(secret))
            }
        }
    }
}

/// A user agent whose browser is set after the emulator starts.
final class ScriptedBrowserBox: AuthorizationUserAgent {
    let inner = Locked<ScriptedBrowser?>(nil)
    func present(_ url: URL, redirectURI: String) async throws {
        try await inner.withLock { $0 }!.present(url, redirectURI: redirectURI)
    }
    func readPastedResponse(_ prompt: String) async throws -> String {
        try await inner.withLock { $0 }!.readPastedResponse(prompt)
    }
}

@Suite struct OAuthApplicationTests {
    @Test func clientCredentialsAndAutomaticRenewal() async throws {
        try await OAuthFixture.with { f in
            let app = try await OAuthApplicationCredential.credential(
                for: f.portalContext, clientID: "portal-auth-app", clientSecret: "app-secret-456",
                tokenExpirationMinutes: 60, services: f.manager.services)
            #expect(app.username == nil)
            try await f.manager.arcGISCredentialStore.add(app)
            let info = try await f.manager.send(
                ArcGISRequest(url: URL(string: f.emulator.portalURL + "/sharing/rest/portals/self")!))
            #expect(info.json?["name"]?.stringValue != nil)
            // A refused app token is requested again, silently.
            f.emulator.expireAllTokens()
            _ = try await f.manager.send(
                ArcGISRequest(url: URL(string: f.emulator.portalURL + "/sharing/rest/portals/self")!))
            #expect(f.emulator.counters().clientCredentialsGrants == 2)
            // The secret is in the stored credential (the keyring's secret), never in attributes.
            let summary = try await f.manager.arcGISCredentialStore.summaries()
            #expect(summary.map(\.kind) == ["oauth-application"])
        }
    }

    @Test func aWrongSecretIsRefusedAndNotEchoed() async throws {
        try await OAuthFixture.with { f in
            let error = await expectPortalAuthError(.authenticationFailed) {
                try await OAuthApplicationCredential.credential(
                    for: f.portalContext, clientID: "portal-auth-app", clientSecret: "wrong-secret-789",
                    services: f.manager.services)
            }
            #expect(error?.message.contains("wrong-secret-789") == false)
            // What to do (check the client ID and secret: sign in again with them) is the remedy.
            #expect(
                error?.remedy
                    == .signIn(
                        .init(
                            kind: OAuthApplicationCredential.kind, serverContext: f.portalContext,
                            clientID: "portal-auth-app")
                    ))
        }
    }
}
