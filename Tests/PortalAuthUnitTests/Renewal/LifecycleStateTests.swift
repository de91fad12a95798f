import Foundation
import PortalAuthPregeneratedToken
import Testing

@testable import PortalAuth

/// The credential lifecycle's decisions, without I/O: what a commit does with a new credential
/// (``CredentialCommit``) and what a renewal does first and when nothing renews
/// (``RenewalDecision``).
@Suite struct LifecycleStateTests {
    typealias Principal = CredentialCommit.Principal
    static let alice = Principal(username: "alice", kind: "token")
    static let aliceOAuth = Principal(username: "alice", kind: "oauth-user")
    static let bob = Principal(username: "bob", kind: "token")
    static let app = Principal(username: nil, kind: "oauth-application", id: "oauth-application client A")
    static let otherApp = Principal(username: nil, kind: "oauth-application", id: "oauth-application client B")
    static let pregenerated = Principal(username: nil, kind: "pregenerated-token", id: "pregenerated-token sha256 01")
    static let otherToken = Principal(username: nil, kind: "pregenerated-token", id: "pregenerated-token sha256 02")
    /// A principal without a name that nothing tells apart (a stored item of an earlier version).
    static let unknown = Principal(username: nil, kind: "federated-token")
    static let bobsToken = Principal(username: "bob", kind: "pregenerated-token")

    struct Row: Sendable, CustomTestStringConvertible {
        let new: Principal
        let origin: CredentialOrigin
        let active: Principal?
        let place: CredentialCommit.Place
        let removesDerivedTokens: Bool
        var testDescription: String {
            "\(new.username ?? new.kind) \(origin) over \(active.map { $0.username ?? $0.kind } ?? "nothing")"
        }
    }

    static let commitTable: [Row] = [
        // Sign-ins: the same user replaces and keeps her server tokens; another user goes beside.
        Row(new: alice, origin: .signIn, active: nil, place: .active, removesDerivedTokens: true),
        Row(new: alice, origin: .signIn, active: alice, place: .active, removesDerivedTokens: false),
        Row(new: aliceOAuth, origin: .signIn, active: alice, place: .active, removesDerivedTokens: false),
        Row(new: bob, origin: .signIn, active: alice, place: .inactive(username: "bob"), removesDerivedTokens: false),
        // A new principal without a name (an app, a pregenerated token) replaces, and the former
        // principal's server tokens go at once.
        Row(new: app, origin: .signIn, active: alice, place: .active, removesDerivedTokens: true),
        Row(new: pregenerated, origin: .replacement, active: alice, place: .active, removesDerivedTokens: true),
        Row(new: pregenerated, origin: .replacement, active: app, place: .active, removesDerivedTokens: true),
        Row(new: bobsToken, origin: .replacement, active: alice, place: .active, removesDerivedTokens: true),
        Row(new: alice, origin: .signIn, active: app, place: .active, removesDerivedTokens: true),
        // A plugin's answer to a challenge is what the request goes on with; a pregenerated token
        // takes the active place too.
        Row(new: bob, origin: .replacement, active: alice, place: .active, removesDerivedTokens: true),
        Row(new: alice, origin: .replacement, active: alice, place: .active, removesDerivedTokens: false),
        // Renewals: where the account lives now; never back after a sign-out.
        Row(new: alice, origin: .renewal, active: alice, place: .active, removesDerivedTokens: false),
        Row(new: app, origin: .renewal, active: app, place: .active, removesDerivedTokens: false),
        Row(
            new: alice, origin: .renewal, active: bob, place: .inactive(username: "alice"), removesDerivedTokens: false),
        Row(new: alice, origin: .renewal, active: nil, place: .nowhere, removesDerivedTokens: false),
        Row(new: app, origin: .renewal, active: alice, place: .nowhere, removesDerivedTokens: false),
        // Federated server tokens: only while their account is the portal's.
        Row(new: alice, origin: .federation, active: alice, place: .active, removesDerivedTokens: false),
        Row(new: alice, origin: .federation, active: bob, place: .nowhere, removesDerivedTokens: false),
        Row(new: alice, origin: .federation, active: app, place: .nowhere, removesDerivedTokens: false),
        Row(new: app, origin: .federation, active: app, place: .active, removesDerivedTokens: false),
        // Signed out while the exchange was in flight: not kept.
        Row(new: alice, origin: .federation, active: nil, place: .nowhere, removesDerivedTokens: false),
        Row(new: app, origin: .federation, active: nil, place: .nowhere, removesDerivedTokens: false),
        // Principals without a name are told apart by kind and client ID or token digest.
        Row(new: app, origin: .federation, active: otherApp, place: .nowhere, removesDerivedTokens: false),
        Row(new: app, origin: .federation, active: pregenerated, place: .nowhere, removesDerivedTokens: false),
        Row(new: pregenerated, origin: .federation, active: app, place: .nowhere, removesDerivedTokens: false),
        Row(new: pregenerated, origin: .federation, active: otherToken, place: .nowhere, removesDerivedTokens: false),
        Row(new: pregenerated, origin: .federation, active: pregenerated, place: .active, removesDerivedTokens: false),
        Row(new: unknown, origin: .federation, active: unknown, place: .nowhere, removesDerivedTokens: false),
        Row(new: app, origin: .federation, active: alice, place: .nowhere, removesDerivedTokens: false),
        // The same app signing in again keeps its server tokens; another app's go.
        Row(new: app, origin: .signIn, active: app, place: .active, removesDerivedTokens: false),
        Row(new: otherApp, origin: .signIn, active: app, place: .active, removesDerivedTokens: true),
    ]

    /// An app is its kind and client ID (its token renews); a principal with neither name nor
    /// client ID is its kind and its token's digest, which never shows the token.
    @Test func aPrincipalWithoutANameIsItsClientIDOrTokenDigest() throws {
        let identity = CredentialCommit.identity
        #expect(identity("oauth-application", "A", "t1") == identity("oauth-application", "A", "t2"))
        #expect(identity("oauth-application", "A", "t1") != identity("oauth-application", "B", "t1"))
        #expect(identity("other", "A", "t1") != identity("oauth-application", "A", "t1"))
        let digest = try #require(identity("pregenerated-token", nil, "secret-token"))
        #expect(digest != identity("pregenerated-token", nil, "other-token"))
        #expect(!digest.contains("secret-token"))
    }

    @Test(arguments: commitTable)
    func commitDecides(_ row: Row) {
        let decision = CredentialCommit.decide(new: row.new, origin: row.origin, active: row.active)
        #expect(decision.place == row.place)
        #expect(decision.removesDerivedTokens == row.removesDerivedTokens)
    }

    /// A failed sign-in leaves the store as it was: a certificate the handshake took is stored
    /// only once its request succeeded; a credential a server refused never is.
    @Test func aNetworkCredentialIsStoredOnlyOnceAccepted() {
        let stores = CredentialCommit.storesNetworkCredential
        #expect(!stores(true, false, true, false), "a sign-in whose request failed")
        #expect(stores(true, false, true, true), "a sign-in whose request succeeded")
        #expect(stores(true, true, true, true), "a ticket a program registers")
        #expect(!stores(false, false, false, false), "refused")
        #expect(stores(false, false, true, false), "a plugin's answer the server took")
        #expect(!stores(false, true, true, true), "the user's own ticket, picked up for a request")
    }

    /// What the readers (the full path and the fast path) decide for a stored federated server
    /// token: it is its portal principal's, and nobody's once the portal is signed out.
    @Test func aFederatedTokenIsOwnOnlyByThePrincipalItWasIssuedFor() throws {
        let portal = try ServerContext("https://host.example.com/portal/sharing/rest")
        let server = try ServerContext("https://host.example.com:6443/arcgis/rest/services")
        func pregenerated(_ token: String, username: String? = nil) -> PregeneratedTokenCredential {
            PregeneratedTokenCredential(
                serverContext: portal,
                tokenInfo: TokenInfo(accessToken: token, expirationDate: nil, isSSLRequired: true),
                username: username)
        }
        let own = ArcGISResolver.isOwnFederatedToken
        let first = pregenerated("first")
        let issued = ArcGISResolver.portalTokenCredential(for: server, portal: first)
        #expect(own(issued, first))
        #expect(!own(issued, nil), "signed out")
        #expect(!own(issued, pregenerated("second")), "another pregenerated token")
        #expect(!own(issued, pregenerated("first", username: "alice")), "a named user")
        let alices = ArcGISResolver.portalTokenCredential(for: server, portal: pregenerated("a", username: "alice"))
        #expect(own(alices, pregenerated("b", username: "alice")), "alice's token, renewed")
        #expect(!own(alices, first))
        // An item of an earlier version without its principal, issued to a principal without a name.
        let earlier = FederatedTokenCredential(
            serverContext: server, portal: portal, tokenInfo: issued.tokenInfo, username: nil, referer: nil)
        #expect(!own(earlier, first))
    }

    static func token(_ value: String, in seconds: TimeInterval) -> TokenInfo {
        TokenInfo(accessToken: value, expirationDate: Date(timeIntervalSinceNow: seconds), isSSLRequired: true)
    }

    /// What a renewal does first, from the stored copy read under the lock.
    @Test func aRenewalStartsFromWhatIsStored() {
        let current = Self.token("a", in: 60)
        let decide = RenewalDecision.firstStep
        // Renewed elsewhere (another task or process) while this one waited: used as it is.
        #expect(decide(current, Self.token("b", in: 3600), 300, false, true) == .useStored)
        #expect(decide(current, Self.token("b", in: 3600), 300, true, true) == .useStored)
        // A refusal before expiry renews even though the stored token has not expired.
        #expect(decide(Self.token("a", in: 3600), Self.token("a", in: 3600), 300, true, true) == .renew)
        // Not refused, not close to expiry: nothing to do.
        #expect(decide(Self.token("a", in: 3600), Self.token("a", in: 3600), 300, false, true) == .useStored)
        // Close to expiry: renew.
        #expect(decide(current, Self.token("a", in: 60), 300, false, true) == .renew)
        // Signed out meanwhile in another process: not brought back.
        #expect(decide(current, nil, 300, false, true) == .signedOut)
        // A store of this process only has no other process to sign out.
        #expect(decide(current, nil, 300, false, false) == .renew)
    }

    /// A renewal to last (an OAuth refresh token exchanged ahead of its end) starts from the
    /// stored copy's end: one another task or process renewed to last meanwhile is used as it is.
    @Test func aRenewalToLastStartsFromTheStoredEnd() {
        let end = Date(timeIntervalSinceNow: 3600)
        let decide = RenewalDecision.firstStepToLast
        // The same end (even with a fresher access token another process stored): renew.
        #expect(decide(end, .some(end), true) == .renew)
        // Another end: renewed to last elsewhere meanwhile.
        #expect(decide(end, .some(end.addingTimeInterval(14 * 86400)), true) == .useStored)
        #expect(decide(end, .some(nil), true) == .useStored)
        // Signed out meanwhile in another process: not brought back.
        #expect(decide(end, nil, true) == .signedOut)
        #expect(decide(end, nil, false) == .renew)
        // The store gives dates back as milliseconds in a double: the same end, not another.
        let stored = Date(timeIntervalSince1970: (end.timeIntervalSince1970 * 1000).rounded() / 1000 + 0.0004)
        #expect(decide(end, .some(stored), true) == .renew)
        #expect(decide(end, .some(end.addingTimeInterval(1)), true) == .useStored)
    }

    /// When nothing renews a credential: a refused one is never used again; one that was only
    /// close to expiry is used until it expires.
    @Test func whenNothingRenews() {
        #expect(RenewalDecision.whenNothingRenews(refused: true, expired: false) == .none)
        #expect(RenewalDecision.whenNothingRenews(refused: false, expired: true) == .none)
        #expect(RenewalDecision.whenNothingRenews(refused: false, expired: false) == .current)
    }
}
