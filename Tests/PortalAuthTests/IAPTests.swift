import Foundation
import Logging
import PortalAuthToken
import PortalEmulator
import TestSupport
import Testing

@testable import PortalAuth
@testable import PortalAuthIAP

/// A full IAP configuration file for an emulator (authorize/token/logout at its Entra ID, the
/// proxy's host:port behind the proxy), as a dictionary to vary key by key.
func iapFile(_ emulator: PortalEmulator?, _ change: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
    let entra = emulator?.entraBaseURL ?? "https://login.microsoftonline.com/tenant/oauth2/v2.0"
    let proxyHost = emulator?.proxyBaseURL.map { String($0.dropFirst("https://".count)) } ?? "*.example.com"
    var object: [String: Any] = [
        "authorize_url": entra + "/authorize", "token_url": entra + "/token", "logout_url": entra + "/logout",
        "client_id": "iap-client", "redirect_url": "http://127.0.0.1/iap/callback",
        "scope": ["iap-client/.default", "offline_access", "openid", "profile"],
        "hosts_behind_proxy": [proxyHost], "authorization_prompt_type": "",
    ]
    change(&object)
    return object
}

func parseIAP(_ object: [String: Any]) throws -> IAPConfiguration {
    let data = try JSONSerialization.data(withJSONObject: object)
    return try IAPConfiguration(file: try ConfigurationFile(data: Array(data), source: "iap.json"))
}

/// The shipped example file, read from the repository (the other configuration tests are unit tests).
@Suite struct IAPExampleFileTests {
    @Test func theShippedExampleIsValid() throws {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("config/iap.example.json").path),
            url.path != "/"
        {
            url = url.deletingLastPathComponent()
        }
        let configuration = try IAPConfiguration(contentsOf: url.appendingPathComponent("config/iap.example.json").path)
        #expect(configuration.clientID == "iap-client")
        #expect(configuration.canBeUsed(for: URL(string: "https://127.0.0.1:8444/portal")!))
        #expect(!configuration.canBeUsed(for: URL(string: "https://127.0.0.1:8443/portal")!))
    }
}

/// An emulator with its application proxy, and a manager with the IAP plugin (and the token
/// plugin for a portal sign-in behind the proxy).
struct IAPFixture {
    let emulator: PortalEmulator
    let manager: AuthenticationManager
    let transport: RecordingTransport
    let configuration: IAPConfiguration
    let provider = CountingProvider()

    /// Starts an emulator with its proxy, wires a manager with the IAP and token plugins to it,
    /// runs `body`, and shuts the emulator down, awaited.
    @discardableResult
    static func with<T>(
        _ change: (inout [String: Any]) -> Void = { _ in },
        emulatorConfiguration: (inout EmulatorConfiguration) -> Void = { _ in },
        browser: ((String) -> any AuthorizationUserAgent)? = nil, _ body: (IAPFixture) async throws -> T
    ) async throws -> T {
        var settings = EmulatorConfiguration.default
        settings.proxyPort = 0
        emulatorConfiguration(&settings)
        return try await withEmulator(settings) { emulator in
            let configuration = try parseIAP(iapFile(emulator, change))
            let transport = RecordingTransport(
                CurlTransport(
                    configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30)))
            let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
            let fixture = IAPFixture(
                emulator: emulator, manager: manager, transport: transport, configuration: configuration)
            manager.register(
                IAPHandler(
                    configurations: [configuration],
                    userAgent: browser?(emulator.caCertificatePath) ?? ScriptedBrowser(ca: emulator.caCertificatePath)))
            manager.register(TokenAuthenticationHandler(provider: fixture.provider))
            return try await withResource(
                fixture, release: { await ScriptedBrowser.finish(ca: $0.emulator.caCertificatePath) }, body)
        }
    }

    var proxiedPortal: String { emulator.proxyBaseURL! + "/portal" }
    var proxiedSelf: URL { URL(string: proxiedPortal + "/sharing/rest/portals/self")! }
    var proxiedCommunitySelf: URL { URL(string: proxiedPortal + "/sharing/rest/community/self")! }

    /// The Authorization headers the requests to `prefix` carried.
    func authorizationHeaders(to prefix: String) -> [String?] {
        transport.requests.filter { $0.url.absoluteString.hasPrefix(prefix) }.map { $0.header("Authorization") }
    }
}

@Suite struct IAPSignInTests {
    @Test func aProxiedRequestSignsInOnceThroughTheBrowserAndCarriesTheToken() async throws {
        try await IAPFixture.with { f in
            let results = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await f.manager.send(ArcGISRequest(url: f.proxiedSelf)).json?["portalName"]?.stringValue
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 == "Emulated Portal" })
            let counters = f.emulator.counters()
            #expect(counters.entraAuthorizationCodeGrants == 1)
            #expect(counters.proxyRequestsByToken["access"] ?? 0 >= 20)
            #expect(counters.entraLastPrompt == "")
            let stored = try #require(try await f.manager.iapCredentialStore.allCredentials().first as? IAPCredential)
            #expect(stored.username == "alice@example.com")
            #expect(stored.refreshToken != nil)
            #expect(stored.idToken != nil)
            #expect(stored.grantedScopes.contains("offline_access"))
        }
    }

    @Test func theTokenGoesToHostsBehindTheProxyOnly() async throws {
        try await IAPFixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            // The same portal on its own address, and the identity provider: no proxy token.
            _ = try await f.manager.send(
                ArcGISRequest(url: URL(string: f.emulator.portalURL + "/sharing/rest/portals/self")!))
            let direct = f.authorizationHeaders(to: f.emulator.baseURL + "/portal")
            #expect(!direct.isEmpty && direct.allSatisfy { $0 == nil })
            #expect(f.authorizationHeaders(to: f.emulator.entraBaseURL).allSatisfy { $0 == nil })
            let proxied = f.authorizationHeaders(to: f.emulator.proxyBaseURL!)
            #expect(proxied.first == .some(nil))  // the first request had no credential yet
            #expect(proxied.dropFirst().allSatisfy { $0?.hasPrefix("Bearer ey") == true })
            #expect(f.emulator.counters().entraTokensOutsideProxy == 0)
        }
    }

    @Test func theIDTokenIsPresentedWhenConfigured() async throws {
        try await IAPFixture.with({ $0["bearer_token"] = "id_token" }) { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            let counters = f.emulator.counters()
            #expect(counters.proxyRequestsByToken["id"] == 1)
            #expect(counters.proxyRequestsByToken["access"] == nil)
        }
    }

    @Test func anExpiringTokenIsRefreshedBeforeUseAndARejectedOneAfter() async throws {
        try await IAPFixture.with(emulatorConfiguration: { $0.entraTokenLifetimeSeconds = 120 }) { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            f.emulator.setEntraTokenLifetime(seconds: 3600)
            // (A token issued for less than the 5-minute window is refreshed as soon as it is used.)
            let baseline = f.emulator.counters().entraRefreshTokenGrants
            // 120 s is inside the 5-minute window: the next request refreshes first, once for all.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 { group.addTask { _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf)) } }
                try await group.waitForAll()
            }
            var counters = f.emulator.counters()
            #expect(counters.entraRefreshTokenGrants == baseline + 1)
            #expect(counters.proxyRequestsByToken["rejected"] == nil)
            #expect(counters.entraAuthorizationCodeGrants == 1)

            // A token the proxy refuses (401 Bearer) is refreshed and the request retried.
            f.emulator.expireEntraTokens()
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            counters = f.emulator.counters()
            #expect(counters.proxyRequestsByToken["rejected"] == 1)
            #expect(counters.entraRefreshTokenGrants == baseline + 2)
            #expect(counters.entraAuthorizationCodeGrants == 1)
        }
    }

    @Test func aPortalSignInBehindTheProxyChainsBothCredentials() async throws {
        try await IAPFixture.with { f in
            let me = try await f.manager.send(ArcGISRequest(url: f.proxiedCommunitySelf))
            #expect(me.json?["username"]?.stringValue == "alice")
            #expect(f.provider.calls == 1)
            // generateToken went through the proxy with the proxy's token.
            let generate = f.transport.requests.filter {
                $0.url.absoluteString.hasPrefix(f.proxiedPortal + "/sharing/rest/generateToken")
            }
            #expect(
                !generate.isEmpty && generate.allSatisfy { $0.header("Authorization")?.hasPrefix("Bearer ") == true })
            let last = try #require(f.transport.requests.last)
            #expect(last.header("Authorization")?.hasPrefix("Bearer ey") == true)
            #expect(last.header("X-Esri-Authorization")?.hasPrefix("Bearer ") == true)
            #expect(
                try await f.manager.arcGISCredentialStore.credential(for: f.proxiedCommunitySelf)?.serverContext.url
                    == f.proxiedPortal)
        }
    }

    @Test func invalidateOpensTheSignOutPageAndRemovesTheCredential() async throws {
        try await IAPFixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            let reports = try await f.manager.revokeOAuthTokens()
            #expect(reports.count == 1)
            guard case .notRevocable(let why)? = reports.first?.outcome else { Issue.record("\(reports)"); return }
            #expect(why.contains("/logout"))
            #expect(reports.first?.username == "alice@example.com")
            let agent = PresentedPages()
            let removed = try await f.manager.invalidateIAPCredentials(for: f.proxiedSelf, userAgent: agent)
            #expect(removed.count == 1)
            #expect(agent.pages == [f.configuration.logoutURL])
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).isEmpty)
            // Another URL's proxy is left alone; clearCredentialStores removes proxies too.
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            #expect(
                try await f.manager.invalidateIAPCredentials(
                    for: URL(string: "https://elsewhere.example.com/")!, userAgent: agent
                ).isEmpty)
            #expect(try await f.manager.clearCredentialStores() == 1)
            // The credential's own invalidate() does the same.
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            let credential = try #require(
                try await f.manager.iapCredentialStore.allCredentials(reload: true).first as? IAPCredential)
            try await credential.invalidate(userAgent: agent, store: f.manager.iapCredentialStore)
            #expect(agent.pages.count == 2)
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).isEmpty)
        }
    }

    @Test func aSilentPromptThatCannotSucceedIsAClearErrorAndStoresNothing() async throws {
        try await IAPFixture.with({ $0["authorization_prompt_type"] = "none" }) { f throws in
            let error = await expectPortalAuthError(.authenticationFailed) {
                try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            }
            if case .oauth(let code, _)? = error?.cause {
                #expect(code == "login_required")
            } else {
                Issue.record("\(String(describing: error))")
            }
            #expect(f.emulator.counters().entraLastPrompt == "none")
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).isEmpty)
        }
    }

    @Test func anIdentityProviderErrorIsReportedAndStoresNothing() async throws {
        try await IAPFixture.with({ $0["client_id"] = "not-registered" }) { f in
            // The authorize page refuses the unknown app (the browser never comes back); the token
            // endpoint answers an Entra error body, checked directly.
            let endpointError = await expectPortalAuthError(.authenticationFailed) {
                try await EntraTokenEndpoint(url: f.configuration.tokenURL).request(
                    [("grant_type", "refresh_token"), ("client_id", "not-registered"), ("refresh_token", "made-up")],
                    services: f.manager.services)
            }
            #expect(endpointError?.message.contains("unauthorized_client") == true, "\(endpointError?.message ?? "")")
            #expect(endpointError?.message.contains("AADSTS700016") == true)
            #expect(endpointError?.message.contains("Trace ID") == false)
            #expect(
                endpointError?.cause
                    == .oauth(
                        error: "unauthorized_client",
                        description: endpointError.flatMap { error in
                            if case .oauth(_, let description)? = error.cause { return description } else { return nil }
                        }))
            #expect(f.emulator.counters().entraTokenErrors == 1)
            // A sign-in with the unregistered app: the Entra page refuses it, the browser never comes
            // back, and nothing is stored.
            let short = try parseIAP(
                iapFile(f.emulator) {
                    $0["client_id"] = "not-registered"; $0["timeout_seconds"] = 2
                })
            await expectPortalAuthError(.timedOut) {
                try await IAPCredential.credential(
                    for: short, userAgent: ScriptedBrowser(ca: f.emulator.caCertificatePath),
                    services: f.manager.services)
            }
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).isEmpty)
        }
    }

    @Test func aBrokenTokenEndpointIsAClearErrorAndStoresNothing() async throws {
        try await IAPFixture.with { f throws in
            f.emulator.inject(Fault(kind: .html, pathContains: "oauth2/v2.0/token"))
            let error = await expectPortalAuthError(.invalidResponse) {
                try await f.manager.send(ArcGISRequest(url: f.proxiedSelf))
            }
            #expect(error?.message.contains("127.0.0.1:\(f.emulator.port)") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("\n") == false)
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).isEmpty)
        }
    }

    @Test func withoutAPluginAProxyChallengeNamesTheFix() async throws {
        var settings = EmulatorConfiguration.default
        settings.proxyPort = 0
        try await withEmulator(settings) { emulator in
            let manager = AuthenticationManager(
                backend: MemoryCredentialBackend(),
                transport: CurlTransport(
                    configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30)))
            manager.iapCredentialStore.register(IAPCredential.self)
            // A stored credential whose token the proxy refuses, and no plugin to sign in again.
            let configuration = try parseIAP(iapFile(emulator) { $0["scope"] = ["openid"] })
            let stale = IAPCredential(
                configuration: configuration, redirectURI: "http://127.0.0.1:1/iap/callback",
                accessToken: TokenInfo(
                    accessToken: "not-a-real-token", expirationDate: Date().addingTimeInterval(3600),
                    isSSLRequired: true),
                idToken: nil, refreshToken: nil, grantedScopes: [], username: "alice@example.com")
            try await manager.iapCredentialStore.add(stale)
            let error = await expectPortalAuthError(.authenticationRequired) {
                try await manager.send(
                    ArcGISRequest(url: URL(string: emulator.proxyBaseURL! + "/portal/sharing/rest/portals/self")!))
            }
            #expect(error?.remedy == .signIn(.identityAwareProxy()))
            #expect(emulator.counters().proxyRequestsByToken["rejected"] == 1)
        }
    }
}

/// Records the pages a user agent was asked to show.
final class PresentedPages: AuthorizationUserAgent {
    private let shown = Locked<[URL]>([])
    var pages: [URL] { shown.withLock { $0 } }
    func present(_ url: URL, redirectURI: String) async throws { shown.withLock { $0.append(url) } }
    func readPastedResponse(_ prompt: String) async throws -> String { "" }
}
