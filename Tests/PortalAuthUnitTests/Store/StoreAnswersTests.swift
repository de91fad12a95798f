import Foundation
import PortalAuthToken
import Testing

@testable import PortalAuth

/// A store keeps its last answers for a URL (one request asks for its credential several times),
/// and gives a kept answer only while what it was made from stands: every write, every cache
/// drop and every read again (`reload`) answers afresh.
@Suite struct StoreAnswersTests {
    let portal = PortalTokens.portal

    func store(_ backend: SharedMemoryBackend) -> ArcGISCredentialStore {
        let store = ArcGISCredentialStore(backend: backend)
        store.register(TokenCredential.self)
        return store
    }

    func token(of store: ArcGISCredentialStore, _ url: URL, reload: Bool = false) async throws -> String? {
        try await store.credential(for: url, reload: reload)?.tokenInfo.accessToken
    }

    @Test func aKeptAnswerStandsUntilItsSourceChanges() async throws {
        let backend = SharedMemoryBackend()
        let (this, other) = (store(backend), store(backend))
        let url = URL(string: portal.url + "/sharing/rest/portals/self")!
        let elsewhere = URL(string: "https://elsewhere.example/portal/sharing/rest")!
        #expect(try await token(of: this, url) == nil)
        #expect(try await token(of: this, url) == nil)
        // Its own write counts at once.
        _ = try await this.commit(PortalTokens.token("alice", "a"), origin: .signIn)
        #expect(try await token(of: this, url) == "a")
        #expect(try await token(of: this, url) == "a")
        #expect(try await token(of: this, elsewhere) == nil)
        // Another store's (another process's) write counts once the cache is dropped, as before.
        _ = try await other.commit(PortalTokens.token("alice", "b"), origin: .signIn)
        #expect(try await token(of: this, url) == "a")
        this.invalidateCache()
        #expect(try await token(of: this, url) == "b")
        // A read again (reload) replaces what was kept for the URL.
        _ = try await other.commit(PortalTokens.token("alice", "c"), origin: .signIn)
        #expect(try await token(of: this, url, reload: true) == "c")
        #expect(try await token(of: this, url) == "c")
        // A sign-out: no answer.
        _ = try await other.forget(.serverContext(portal))
        this.invalidateCache()
        #expect(try await token(of: this, url) == nil)
        // Many URLs in turn: each gets its own answer, never another's.
        _ = try await this.commit(PortalTokens.token("alice", "d"), origin: .signIn)
        for round in 0..<3 {
            for index in 0..<12 {
                let inside = URL(string: portal.url + "/sharing/rest/content/items/\(index)")!
                let outside = URL(string: "https://host\(index).example/portal/sharing/rest")!
                #expect(try await token(of: this, inside) == "d", "round \(round)")
                #expect(try await token(of: this, outside) == nil, "round \(round)")
            }
        }
    }
}
