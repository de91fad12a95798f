import Foundation
import PortalEmulator
import TestSupport
import Testing

@testable import PortalAuth
@testable import PortalAuthToken

/// A server that names the portal as its owner and a token service of its choosing on the
/// portal's host (the portal's `sharing/proxy?` forwarding elsewhere, or another path) chooses
/// nothing: the portal's token and password go only to the portal's own generateToken, and not
/// at all for a server the portal does not vouch for.
@Suite struct TokenServiceSecurityTests {
    /// The emulator's claimants and the path each one's named token service lands on.
    static let claimants = [
        ("/claimant-proxy", "/portal/sharing/proxy"), ("/claimant-path", "/portal/sharing/collect/generateToken"),
    ]

    @Test(arguments: claimants)
    func aClaimantNamingATokenServiceGetsNoExchangeOfThePortalToken(claimant: String, landing: String) async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let before = f.emulator.counters()
            let query = URL(string: f.emulator.baseURL + claimant + "/rest/services/Parcels/FeatureServer/0/query")!
            let error = await expectPortalAuthError(.notFederated) {
                try await f.manager.send(ArcGISRequest(url: query, parameters: [("where", "1=1")]))
            }
            try await expectNothingWentAstray(f, claimant: claimant, landing: landing, error: error, before: before)
            #expect(f.provider.calls == 1)
        }
    }

    /// The portal token expired and no password is kept in memory: the password the provider
    /// gives (remembered, or typed) would go where the server says.
    @Test(arguments: claimants)
    func aClaimantNamingATokenServiceGetsNoPasswordAfterExpiry(claimant: String, landing: String) async throws {
        let provider = CountingProvider()
        try await withEmulator { emulator in
            let transport = CurlTransport(
                configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30))
            let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
            manager.register(TokenAuthenticationHandler(provider: provider, keepPassword: false))
            let f = Fixture(
                emulator: emulator, manager: manager, provider: provider, transport: RecordingTransport(transport))
            _ = try await manager.send(ArcGISRequest(url: f.communitySelf))
            // The portal's token expires at the portal and here.
            let stored = try #require(try await manager.arcGISCredentialStore.credential(for: f.portalContext))
            let token = try #require(stored as? TokenCredential)
            emulator.clock.advance(by: .seconds(7200))
            try await manager.arcGISCredentialStore.add(
                TokenCredential(
                    serverContext: token.serverContext, tokenServiceURL: token.tokenServiceURL,
                    username: token.username ?? "alice",
                    tokenInfo: TokenInfo(
                        accessToken: token.tokenInfo.accessToken, expirationDate: Date(timeIntervalSince1970: 0),
                        isSSLRequired: true),
                    referer: nil, tokenExpirationMinutes: 60))
            let before = emulator.counters()
            let query = URL(string: emulator.baseURL + claimant + "/rest/services/Parcels/FeatureServer/0/query")!
            let error = await expectPortalAuthError(.notFederated) {
                try await manager.send(ArcGISRequest(url: query, parameters: [("where", "1=1")]))
            }
            try await expectNothingWentAstray(f, claimant: claimant, landing: landing, error: error, before: before)
            #expect(provider.calls == 1)  // the first sign-in only: no password was asked for the claimant
            #expect(emulator.counters().generateTokenRequests == before.generateTokenRequests)
        }
    }

    func expectNothingWentAstray(
        _ f: Fixture, claimant: String, landing: String, error: PortalAuthError?, before: EmulatorCounters
    ) async throws {
        let counters = f.emulator.counters()
        #expect(counters.requestsByPath[landing] == nil)
        #expect(counters.requestsByPath["/collect"] == nil)
        #expect(counters.tokensSentToClaimant == 0)
        #expect(counters.serverTokenRequests == before.serverTokenRequests)
        let server = try ServerContext(f.emulator.baseURL + claimant)
        #expect(try await f.manager.arcGISCredentialStore.credential(for: server) == nil)
        let error = try #require(error)
        #expect(error.message.contains(server.url), "\(error.message)")
        #expect(error.message.contains("does not list"), "\(error.message)")
        #expect(error.message.contains("no token or password was sent"), "\(error.message)")
        #expect(error.remedy == .reportToAdministrator(server: f.portalContext.url))
    }

    /// A standalone server keeps its own token service, but not one with a query string (or on
    /// another path or host): the password goes to its conventional one on its own origin.
    @Test func aStandaloneServerNamingAQueryGetsThePasswordOnlyAtItsOwnTokenService() async throws {
        try await withEmulator { emulator in
            let server = emulator.standaloneServerURL
            let named = server + "/tokens/generateToken?" + emulator.baseURL + "/collect"
            let info =
                #"{"currentVersion":11.3,"authInfo":{"isTokenBasedSecurity":true,"tokenServicesUrl":"\#(named)"}}"#
            let recording = RecordingTransport(
                CurlTransport(
                    configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30)))
            let transport = LyingServerInfo(recording, serverInfoURL: server + "/rest/info", body: info)
            let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
            manager.register(TokenAuthenticationHandler(provider: CountingProvider()))
            let query = URL(string: server + "/rest/services/Parcels/FeatureServer/0/query")!
            let count = try await manager.send(
                ArcGISRequest(url: query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect(count.json?["count"]?.doubleValue == 24)
            let posts = recording.requests.filter { $0.method == .post }.map(\.url.absoluteString)
            #expect(posts == [server + "/tokens/generateToken"], "\(posts)")
            #expect(emulator.counters().standaloneTokenRequests == 1)
        }
    }

    @Test func tokenServicesAreTheContextsOwnOnly() throws {
        let portal = try ServerContext("https://host.example/portal")
        for own in [
            "https://host.example/portal/sharing/rest/generateToken",
            "https://HOST.example:443/portal/sharing/generateToken",
        ] {
            #expect(portal.acceptsTokenService(URL(string: own)!), "\(own)")
            #expect(portal.isOwnPortalTokenService(hint: own), "\(own)")
        }
        for other in [
            "https://host.example/portal/sharing/proxy?https://evil.example/collect",
            "https://host.example/portal/sharing/rest/generateToken?x=1",
            "https://host.example/portal/sharing/rest/generateToken#x",
            "https://host.example/portal/sharing/collect/generateToken",
            "https://host.example/portal/sharing/rest/content/items/x",
            "https://host.example/other/sharing/rest/generateToken",
            "https://host.example/portalx/sharing/rest/generateToken",
            "http://host.example/portal/sharing/rest/generateToken",
            "https://host.example:8443/portal/sharing/rest/generateToken",
            "https://evil.example/portal/sharing/rest/generateToken",
            "not a url",
        ] {
            #expect(!portal.acceptsTokenService(URL(string: other) ?? URL(string: "x:")!), "\(other)")
            #expect(!portal.isOwnPortalTokenService(hint: other), "\(other)")
        }
        #expect(portal.isOwnPortalTokenService(hint: nil))
        // A standalone server keeps its own token service, on its own origin.
        let server = try ServerContext("https://gis.example/arcgis/rest/services")
        #expect(server.acceptsTokenService(URL(string: "https://gis.example/arcgis/tokens/generateToken")!))
        #expect(server.acceptsTokenService(URL(string: "https://gis.example/arcgis/tokens/")!))
        #expect(!server.acceptsTokenService(URL(string: "https://gis.example/arcgis/tokens/generateToken?a")!))
        #expect(!server.acceptsTokenService(URL(string: "https://gis.example/arcgis/rest/proxy")!))
        // An ArcGIS Online organization signs in through www.arcgis.com's.
        let org = try ServerContext("https://myorg.maps.arcgis.com")
        #expect(org.acceptsTokenService(URL(string: "https://www.arcgis.com/sharing/rest/generateToken")!))
        #expect(!org.acceptsTokenService(URL(string: "https://www.arcgis.com/sharing/proxy?x")!))
        #expect(!org.acceptsTokenService(URL(string: "https://evilarcgis.com/sharing/rest/generateToken")!))
    }
}
