import Foundation
import PortalAuthOAuthApplication
import PortalEmulator
import TestSupport
import Testing

@testable import PortalAuth
@testable import PortalAuthToken

@Suite struct FederationWithEveryCredentialTests {
    /// Signs the emulator's confidential app in (client_credentials) and stores its credential.
    func signInAsApp(_ f: OAuthFixture) async throws {
        let app = try await OAuthApplicationCredential.credential(
            for: f.portalContext, clientID: "portal-auth-app", clientSecret: "app-secret-456",
            tokenExpirationMinutes: 60, services: f.manager.services)
        try await f.manager.arcGISCredentialStore.add(app)
    }

    @Test func anAppTokenThePortalWillNotExchangeIsUsedAtTheFederatedServerItself() async throws {
        try await OAuthFixture.with({ $0.serverAcceptsPortalTokens = true }) { f in
            try await signInAsApp(f)
            let response = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect((response.json?["count"]?.doubleValue ?? 0) > 0)
            var counters = f.emulator.counters()
            // The exchange was refused (498), the app token renewed once with its secret and
            // refused again; then the portal's token went to the federated server.
            #expect(counters.clientCredentialsGrants == 2)
            #expect(counters.queriesByTokenKind["app"] == 1)
            #expect(counters.queriesByTokenKind["server"] == nil)
            // The portal's own list of federated servers decided, read once.
            #expect(counters.federatedServerListReads == 1)
            let server = try ServerContext(f.emulator.serverURL)
            let stored = try #require(try await f.manager.arcGISCredentialStore.credential(for: server))
            #expect(stored is FederatedTokenCredential)
            #expect(stored.derivedFrom == f.portalContext)
            // The refusal is remembered for the server: without the cached server credential,
            // the next request federates again without asking the portal for an exchange.
            let exchanges = counters.serverTokenRequests
            try await f.manager.arcGISCredentialStore.remove(server)
            _ = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            counters = f.emulator.counters()
            #expect(counters.serverTokenRequests == exchanges)
            #expect(counters.clientCredentialsGrants == 2)
            #expect(counters.queriesByTokenKind["app"] == 2)
        }
    }

    @Test func aPortalTokenRefusedOnceDuringTheExchangeIsRenewedAndExchanged() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(f.emulator.counters().generateTokenRequests == 1)
            // The portal refuses the next request carrying a token to generateToken: the exchange.
            f.emulator.inject(Fault(kind: .rejectAllTokens, pathContains: "generateToken", count: 1))
            let response = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect((response.json?["count"]?.doubleValue ?? 0) > 0)
            let counters = f.emulator.counters()
            // Renewed once with the password kept in memory (no prompt), then exchanged.
            #expect(counters.generateTokenRequests == 2)
            #expect(f.provider.calls == 1)
            #expect(counters.queriesByTokenKind["server"] == 1)
            #expect(counters.queriesByTokenKind["portal"] == nil)
            let server = try ServerContext(f.emulator.serverURL)
            let stored = try await f.manager.arcGISCredentialStore.credential(for: server)
            let portal = try await f.manager.arcGISCredentialStore.credential(for: f.portalContext)
            #expect(stored is FederatedTokenCredential)
            #expect(stored?.tokenInfo.accessToken != portal?.tokenInfo.accessToken)
        }
    }

    @Test func anExchangeOnlyServerStillRefusesTheAppTokenClearly() async throws {
        try await OAuthFixture.with({ $0.serverAcceptsPortalTokens = false }) { f in
            try await signInAsApp(f)
            let error = await expectPortalAuthError(.invalidToken) {
                try await f.manager.send(
                    ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            }
            // The remedy is the app's own sign-in (its client ID), not a username/password one.
            let app = try #require(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext))
            #expect(app is OAuthApplicationCredential)
            #expect(error?.remedy == .signIn(app.howToSignIn))
            #expect(f.emulator.counters().queriesByTokenKind["server"] == nil)
        }
    }

    /// The claimant names the portal as its owner in `rest/info`; the portal refuses the exchange
    /// (with a message that does not say "not federated") and does not list it.
    @Test func aServerThatOnlyClaimsFederationGetsNoPasswordSignInToken() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            try await expectNothingGoesToTheClaimant(f.emulator, f.manager)
        }
    }

    @Test func aServerThatOnlyClaimsFederationGetsNoAppToken() async throws {
        try await OAuthFixture.with({ $0.serverAcceptsPortalTokens = true }) { f in
            try await signInAsApp(f)
            try await expectNothingGoesToTheClaimant(f.emulator, f.manager)
        }
    }

    func expectNothingGoesToTheClaimant(_ emulator: PortalEmulator, _ manager: AuthenticationManager) async throws {
        let query = URL(string: emulator.claimantServerURL + "/rest/services/Parcels/FeatureServer/0/query")!
        let error = await expectPortalAuthError(.notFederated) {
            try await manager.send(ArcGISRequest(url: query, parameters: [("where", "1=1")]))
        }
        #expect(error?.remedy != PortalAuthError.Remedy.none)
        _ = await expectPortalAuthError(.notFederated) { try await manager.credential(for: query, interactive: false) }
        let counters = emulator.counters()
        #expect(counters.tokensSentToClaimant == 0)
        #expect(counters.serverTokenRequests >= 1)
        #expect(counters.federatedServerListReads == 1)  // once per portal token, not per request
        #expect(
            try await manager.arcGISCredentialStore.credential(for: ServerContext(emulator.claimantServerURL)) == nil)
    }

}

/// A federated server token left by another account (before a switch) is never handed out.
@Suite struct FederatedTokenOwnerTests {
    @Test func aStoredServerTokenOfAnotherAccountIsObtainedAgainForTheActiveOne() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let server = try ServerContext(f.emulator.serverURL)
            let info = TokenInfo(accessToken: "bobs-server-token", expirationDate: nil, isSSLRequired: true)
            try await f.manager.arcGISCredentialStore.add(
                FederatedTokenCredential(
                    serverContext: server, portal: f.portalContext, tokenInfo: info, username: "bob", referer: nil))
            let used = try await f.manager.credential(for: f.layer, interactive: false)
            #expect(used.tokenInfo.accessToken != "bobs-server-token")
            #expect(used.username == "alice")
            let stored = try await f.manager.arcGISCredentialStore.credential(for: server, reload: true)
            #expect(stored?.username == "alice")
        }
    }
}
