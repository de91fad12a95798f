import Foundation
import PortalAuth
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalAuthPregeneratedToken
import PortalAuthToken
import Testing

/// A credential of a plugin written outside the library: a lease that renews itself until the
/// lease ends. It answers for itself, as the bundled ones do.
private struct LeaseCredential: ArcGISCredential, Codable {
    static let kind = "outside-lease"
    let serverContext: ServerContext
    let tokenInfo: TokenInfo
    let username: String?
    let leaseEnds: Date
    var renewal: CredentialRenewal { .renewsItselfUntil(leaseEnds) }
    var remedyWhenLapsed: PortalAuthError.Remedy? { .reportToAdministrator(server: "lease.example") }
}

/// A plugin's credential that does not say: the family's cautious default.
private struct SilentCredential: ArcGISCredential, Codable {
    static let kind = "outside-silent"
    let serverContext: ServerContext
    let tokenInfo: TokenInfo
    let username: String?
}

/// Each credential type answers for itself whether and until when it renews
/// (``StoredCredential/renewal``), and `renew` and `status --check` decide from that answer alone
/// (``CredentialRenewal``), for a bundled plugin's credential and an outside one's alike.
@Suite struct CredentialRenewalTests {
    let portal = try! ServerContext("https://host.example.com/portal")
    let now = Date(timeIntervalSince1970: 2_000_000_000)
    var inAnHour: Date { now.addingTimeInterval(3600) }
    var inAWeek: Date { now.addingTimeInterval(7 * 86400) }
    var token: TokenInfo { TokenInfo(accessToken: "t", expirationDate: inAnHour, isSSLRequired: true) }

    @Test func eachBundledCredentialAnswersForItself() throws {
        let oauth = OAuthUserCredential(
            serverContext: portal, clientID: "app", redirectURL: URL(string: "r")!, redirectURI: "r", username: "bob",
            tokenInfo: token, refreshToken: "x", refreshTokenExpirationDate: inAWeek)
        #expect(oauth.renewal == .renewsItselfUntil(inAWeek))
        let app = OAuthApplicationCredential(
            serverContext: portal, clientID: "app", clientSecret: "s", tokenExpirationMinutes: 60, tokenInfo: token)
        #expect(app.renewal == .renewsItself)
        let tokenService = URL(string: portal.url + "/sharing/rest/generateToken")!
        let stored = TokenCredential(
            serverContext: portal, tokenServiceURL: tokenService, username: "alice", tokenInfo: token, referer: nil,
            tokenExpirationMinutes: 60)
        #expect(stored.renewal == .needsUnattendedSignIn)
        let inMemory = TokenCredential(
            serverContext: portal, tokenServiceURL: tokenService, username: "alice", tokenInfo: token, referer: nil,
            tokenExpirationMinutes: 60, password: "pw")
        #expect(inMemory.renewal == .renewsItself)
        #expect(
            PregeneratedTokenCredential(serverContext: portal, tokenInfo: token).renewal
                == .cannotRenew(endsAt: inAnHour))
        let key = try APIKeyCredential(apiKey: "AAPTk", portalURL: URL(string: portal.url)!, expirationDate: inAWeek)
        #expect(key.renewal == .cannotRenew(endsAt: inAWeek))
        #expect(key.remedyWhenLapsed == .storeAPIKey(portal: portal))
        // A key made here knows its item: it rotates.
        var made = key
        made.itemID = "item1"
        #expect(made.renewal == .rotates(endsAt: inAWeek))
        #expect(oauth.remedyWhenLapsed == nil)
        let server = try ServerContext("https://host.example.com/server")
        let federated = FederatedTokenCredential(
            serverContext: server, portal: portal, tokenInfo: token, username: "alice", referer: nil)
        #expect(federated.renewal == .followsPortal)
        #expect(StubNetworkCredential(host: portal, password: "p").renewal == .cannotRenew(endsAt: nil))
    }

    @Test func statusCheckListsWhatStopsWorkingForGood() {
        #expect(CredentialRenewal.renewsItself.lapse(tokenExpires: inAnHour, signsInUnattended: false) == nil)
        #expect(CredentialRenewal.followsPortal.lapse(tokenExpires: inAnHour, signsInUnattended: false) == nil)
        #expect(
            CredentialRenewal.renewsItselfUntil(inAWeek).lapse(tokenExpires: inAnHour, signsInUnattended: false)
                == inAWeek)
        #expect(CredentialRenewal.renewsItselfUntil(nil).lapse(tokenExpires: inAnHour, signsInUnattended: false) == nil)
        #expect(
            CredentialRenewal.needsUnattendedSignIn.lapse(tokenExpires: inAnHour, signsInUnattended: false) == inAnHour)
        #expect(CredentialRenewal.needsUnattendedSignIn.lapse(tokenExpires: inAnHour, signsInUnattended: true) == nil)
        #expect(
            CredentialRenewal.cannotRenew(endsAt: inAWeek).lapse(tokenExpires: inAnHour, signsInUnattended: true)
                == inAWeek)
        #expect(CredentialRenewal.cannotRenew(endsAt: nil).lapse(tokenExpires: nil, signsInUnattended: false) == nil)
    }

    @Test func renewRenewsBeforeTheEndAndOnlyWhatCanRenewUnattended() {
        func lasting(_ renewal: CredentialRenewal, kept: Bool = false) -> [String] {
            let (until, renewable) = renewal.lasting(tokenExpires: inAnHour, signsInUnattended: kept, now: now)
            return [until.map { "\($0.timeIntervalSince(now))" } ?? "none", "\(renewable)"]
        }
        #expect(lasting(.renewsItself) == ["3600.0", "true"])
        #expect(lasting(.renewsItselfUntil(inAWeek)) == ["604800.0", "true"])
        #expect(lasting(.renewsItselfUntil(now.addingTimeInterval(-1))) == ["-1.0", "false"])
        #expect(lasting(.renewsItselfUntil(nil)) == ["none", "true"])
        #expect(lasting(.needsUnattendedSignIn) == ["3600.0", "false"])
        #expect(lasting(.needsUnattendedSignIn, kept: true) == ["3600.0", "true"])
        #expect(lasting(.cannotRenew(endsAt: inAWeek)) == ["604800.0", "false"])
        // One that rotates is renewed only by a program that rotates.
        #expect(lasting(.rotates(endsAt: inAWeek)) == ["604800.0", "false"])
        #expect(lasting(.rotates(endsAt: inAWeek), kept: true) == ["604800.0", "true"])
        let rotates = CredentialRenewal.rotates(endsAt: inAWeek)
        #expect(rotates.lapse(tokenExpires: nil, signsInUnattended: false) == inAWeek)
    }

    @Test func anOutsidePluginsCredentialIsAskedAsTheBundledOnesAre() async throws {
        let store = ArcGISCredentialStore(backend: MemoryCredentialBackend())
        store.register(LeaseCredential.self)
        store.register(SilentCredential.self)
        try await store.commit(
            LeaseCredential(serverContext: portal, tokenInfo: token, username: nil, leaseEnds: inAWeek), origin: .signIn
        )
        let other = try ServerContext("https://other.example.com/portal")
        try await store.commit(SilentCredential(serverContext: other, tokenInfo: token, username: nil), origin: .signIn)
        let summaries = try await store.summaries().sorted { $0.server < $1.server }
        // Its own answer reaches `renew` and `status --check` through the summary, kind unknown to them.
        #expect(summaries.map(\.renewal) == [.renewsItselfUntil(inAWeek), .cannotRenew(endsAt: inAnHour)])
        #expect(summaries.map(\.remedyWhenLapsed) == [.reportToAdministrator(server: "lease.example"), nil])
        #expect(summaries[0].renewal?.lapse(tokenExpires: inAnHour, signsInUnattended: false) == inAWeek)
        // A credential that does not say is taken to end with its token (status --check names it).
        #expect(summaries[1].renewal?.lapse(tokenExpires: inAnHour, signsInUnattended: false) == inAnHour)
    }

    @Test func anUnreadableItemHasNoAnswer() async throws {
        let backend = MemoryCredentialBackend()
        let store = ArcGISCredentialStore(backend: backend)
        try await store.commit(
            LeaseCredential(serverContext: portal, tokenInfo: token, username: nil, leaseEnds: inAWeek), origin: .signIn
        )
        // Read back by a store that does not know the kind.
        let stranger = ArcGISCredentialStore(backend: backend)
        #expect(try await stranger.summaries().map(\.renewal) == [nil])
    }
}
