import Foundation
import PortalAuth
import PortalAuthOAuthApplication
import PortalEmulator
import Testing

@testable import PortalAuthToken

/// Runs `body` with `fixture` and shuts it down, awaited, whatever happens.
func withShutdown<F, T>(
    _ fixture: F, _ shutdown: (F) async -> Void, _ body: (F) async throws -> T
) async throws -> T {
    do {
        let result = try await body(fixture)
        await shutdown(fixture)
        return result
    } catch {
        await shutdown(fixture)
        throw error
    }
}

/// Runs `body` with an OAuth fixture and shuts its emulator down, awaited.
func withOAuthFixture<T>(
    _ configure: (inout EmulatorConfiguration) -> Void, _ body: (OAuthFixture) async throws -> T
) async throws -> T {
    try await withShutdown(try await OAuthFixture.make(configure), { await $0.shutdown() }, body)
}

/// Runs `body` with a username/password fixture and shuts its emulator down, awaited.
func withFixture<T>(
    _ configuration: EmulatorConfiguration = .default, _ body: (Fixture) async throws -> T
) async throws -> T {
    try await withShutdown(try await Fixture.make(configuration), { await $0.shutdown() }, body)
}

@Suite struct FederationWithEveryCredentialTests {
    /// Signs the emulator's confidential app in (client_credentials) and stores its credential.
    func signInAsApp(_ f: OAuthFixture) async throws {
        let app = try await OAuthApplicationCredential.credential(
            for: f.portalContext, clientID: "portal-auth-app", clientSecret: "app-secret-456",
            tokenExpirationMinutes: 60, services: f.manager.services)
        try await f.manager.arcGISCredentialStore.add(app)
    }

    @Test func anAppTokenThePortalWillNotExchangeIsUsedAtTheFederatedServerItself() async throws {
        try await withOAuthFixture({ $0.serverAcceptsPortalTokens = true }) { f in
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
        try await withFixture { f in
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
        try await withOAuthFixture({ $0.serverAcceptsPortalTokens = false }) { f in
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
}
