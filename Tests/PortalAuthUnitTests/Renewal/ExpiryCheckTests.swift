import Foundation
import Logging
import PortalAuth
import PortalAuthOAuthApplication
import PortalAuthToken
import Testing

@testable import portal_auth

/// `status --check`'s decision (which stored credentials cannot renew themselves unattended) and
/// the remembered password's unattended renewal, over a store in memory.
@Suite struct ExpiryCheckTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    let server = try! ServerContext("https://host.example.com/server")
    let inAnHour = Date(timeIntervalSinceNow: 3600)

    func token(_ user: String, password: String? = nil) -> TokenCredential {
        TokenCredential(
            serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
            username: user, tokenInfo: TokenInfo(accessToken: "t", expirationDate: inAnHour, isSSLRequired: true),
            referer: nil, tokenExpirationMinutes: 60, password: password)
    }

    func manager(_ backend: any CredentialStorageBackend) -> AuthenticationManager {
        let manager = AuthenticationManager(backend: backend, transport: NoNetworkTransport())
        manager.arcGISCredentialStore.register(TokenCredential.self)
        manager.arcGISCredentialStore.register(OAuthApplicationCredential.self)
        manager.setUnattendedRenewal(RememberedPasswordRenewal(backend: backend, logger: Logger(label: "test")))
        return manager
    }

    func lapses(_ manager: AuthenticationManager) async throws -> [ExpiryCheck.Lapse] {
        try await ExpiryCheck.lapses(
            in: try await manager.arcGISCredentialStore.summaries(), before: Date(timeIntervalSinceNow: 7 * 86400),
            manager: manager)
    }

    @Test func aPasswordSignInWithoutARememberedPasswordLapsesWithItsToken() async throws {
        let manager = manager(SharedMemoryBackend())
        try await manager.arcGISCredentialStore.commit(token("alice"), origin: .signIn)
        let lapses = try await lapses(manager)
        #expect(lapses.map(\.summary.kind) == [TokenCredential.kind])
        #expect(ExpiryCheck.line(lapses[0], now: Date()).hasPrefix("token for \(portal.url) as alice expires 20"))
    }

    @Test func aRememberedPasswordRenewsUnattendedSoItDoesNotLapse() async throws {
        let backend = SharedMemoryBackend()
        let manager = manager(backend)
        try await manager.arcGISCredentialStore.commit(token("alice"), origin: .signIn)
        try await RememberedPassword.save("pw", for: portal, username: "alice", in: backend)
        #expect(try await lapses(manager).isEmpty)
        // Another user's remembered password is not alice's.
        try await manager.arcGISCredentialStore.commit(token("bob"), origin: .replacement)
        #expect(try await lapses(manager).map(\.summary.username) == ["bob"])
    }

    @Test func anInactiveAccountsRememberedPasswordRenewsItUnattended() async throws {
        let backend = SharedMemoryBackend()
        let manager = manager(backend)
        let store = manager.arcGISCredentialStore
        try await store.addAccount(token("alice"))
        try await store.addAccount(token("bob"))
        try await RememberedPassword.save("pw", for: portal, username: "bob", in: backend)
        let bobs = try await store.accountStore(username: "bob").summaries()
        #expect(bobs.map(\.username) == ["bob"])
        #expect(try await manager.signsInUnattended(for: bobs[0]))
        let alices = try await store.summaries()
        #expect(alices.map(\.username) == ["alice"])
        #expect(try await !manager.signsInUnattended(for: alices[0]))
    }

    /// A program's own renewal, not the CLI's reading of kept passwords, says what renews unattended.
    @Test func theManagersUnattendedRenewalIsAskedNotTheKeptPasswords() async throws {
        struct RenewsEveryToken: UnattendedRenewal {
            func renewed(
                _ credential: any ArcGISCredential, services: AuthenticationServices
            ) async throws -> (any ArcGISCredential)? { nil }
            func canRenew(_ credential: any ArcGISCredential) -> Bool { credential is TokenCredential }
        }
        let backend = SharedMemoryBackend()
        let manager = manager(backend)
        try await manager.arcGISCredentialStore.commit(token("alice"), origin: .signIn)
        manager.setUnattendedRenewal(RenewsEveryToken())
        #expect(try await lapses(manager).isEmpty)
        let renew = RenewOne(
            summary: try await manager.arcGISCredentialStore.summaries()[0], manager: manager, window: 86400)
        #expect(try await renew.lasting().1)
        // None registered: a remembered password alone renews nothing.
        try await RememberedPassword.save("pw", for: portal, username: "alice", in: backend)
        manager.setUnattendedRenewal(nil)
        #expect(try await lapses(manager).map(\.summary.username) == ["alice"])
        let (until, renewable) = try await renew.lasting()
        #expect(!renewable && abs(until?.timeIntervalSince(inAnHour) ?? 99) < 1)
    }

    @Test func serverTokensAndAppsRenewThemselvesAndAreNotListed() async throws {
        let manager = manager(SharedMemoryBackend())
        let store = manager.arcGISCredentialStore
        let app = OAuthApplicationCredential(
            serverContext: portal, clientID: "app", clientSecret: "secret", tokenExpirationMinutes: 60,
            tokenInfo: TokenInfo(accessToken: "app", expirationDate: inAnHour, isSSLRequired: true))
        try await store.commit(app, origin: .signIn)
        try await store.commit(
            FederatedTokenCredential(
                serverContext: server, portal: portal,
                tokenInfo: TokenInfo(accessToken: "s", expirationDate: inAnHour, isSSLRequired: true), username: nil,
                referer: nil,
                portalPrincipal: CredentialCommit.identity(
                    kind: OAuthApplicationCredential.kind, clientID: "app", token: "app")),
            origin: .federation)
        #expect(try await store.summaries().count == 2)
        #expect(try await lapses(manager).isEmpty)
    }

    @Test func theRememberedPasswordRenewsOnlyATokenWhosePasswordIsRemembered() async throws {
        let backend = SharedMemoryBackend()
        let renewal = RememberedPasswordRenewal(backend: backend, logger: Logger(label: "test"))
        let services = manager(backend).services
        // Nothing remembered: nothing to renew with (and no request is made).
        #expect(try await renewal.renewed(token("alice"), services: services) == nil)
        // A token whose password is in memory renews itself.
        try await RememberedPassword.save("pw", for: portal, username: "alice", in: backend)
        #expect(try await renewal.renewed(token("alice", password: "pw"), services: services) == nil)
        // Remembered: it signs in again at the token service (here, no network).
        await #expect(throws: PortalAuthError.self) { try await renewal.renewed(token("alice"), services: services) }
    }

    @Test func theMemoryStoreRemembersNothing() async throws {
        let backend = MemoryCredentialBackend()
        let renewal = RememberedPasswordRenewal(backend: backend, logger: Logger(label: "test"))
        #expect(try await renewal.renewed(token("alice"), services: manager(backend).services) == nil)
    }
}
