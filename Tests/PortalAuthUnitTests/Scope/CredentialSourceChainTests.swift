import Foundation
import PortalAuth
import Synchronization
import Testing

/// The chain of credential sources a program asks which manager answers for a URL: the first
/// source that answers wins and the later ones are not asked; the stored credentials answer for
/// every URL, and, following changes, see the stores as they are now. No network.
@Suite struct CredentialSourceChainTests {
    /// A source that answers for the URLs under `prefix` and counts the questions it was asked.
    final class PrefixSource: CredentialSource {
        let description: String
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        let prefix: String
        let questions = Mutex<[CredentialSourceCaller]>([])
        init(_ description: String, prefix: String) {
            self.description = description
            self.prefix = prefix
        }
        func answers(for url: URL, askedBy caller: CredentialSourceCaller) async throws -> Bool {
            questions.withLock { $0.append(caller) }
            return url.absoluteString.hasPrefix(prefix)
        }
    }

    @Test func theFirstSourceThatAnswersWinsAndTheRestAreNotAsked() async throws {
        let first = PrefixSource("first", prefix: "https://a.example.com/")
        let second = PrefixSource("second", prefix: "https://")
        let chain = CredentialSourceChain([first, second])
        let a = try await chain.source(for: URL(string: "https://a.example.com/x")!, askedBy: .program)
        #expect(a?.description == "first")
        #expect(second.questions.withLock { $0 }.isEmpty)
        let b = try await chain.manager(for: URL(string: "https://b.example.com/x")!, askedBy: .proxy)
        #expect(b === second.manager)
        // Each source is told who asks.
        #expect(first.questions.withLock { $0 } == [.program, .proxy])
        #expect(second.questions.withLock { $0 } == [.proxy])
        #expect(try await chain.source(for: URL(string: "http://b.example.com/x")!, askedBy: .proxy) == nil)
    }

    @Test func theStoredCredentialsAnswerForEveryURLAndFollowTheStoresChanges() async throws {
        let portal = URL(string: "https://host.example.com/portal")!
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        let following = StoredCredentialSource(manager: manager, followingChanges: true)
        let url = URL(string: "https://anywhere.example.com/x")!
        #expect(try await CredentialSourceChain([following]).manager(for: url, askedBy: .proxy) === manager)
        #expect(manager.apiKeys.isEmpty)
        // Another process stores a key: the next answer gives the manager the stored keys.
        let key = try APIKeyCredential(apiKey: "AAPTstored", portalURL: portal)
        try await manager.arcGISCredentialStore.commit(key, origin: .signIn)
        #expect(try await following.answers(for: url, askedBy: .proxy))
        #expect(manager.apiKeys == [key])
        // It is removed, while adopted for one URL: the next answer forgets it.
        manager.apiKey = key
        _ = try await manager.arcGISCredentialStore.forget(key.scope)
        #expect(try await following.answers(for: url, askedBy: .proxy))
        #expect(manager.apiKeys.isEmpty && manager.apiKey == nil)
        // A source that does not follow changes leaves the manager as it is.
        manager.apiKey = key
        let still = StoredCredentialSource(manager: manager, followingChanges: false)
        #expect(try await still.answers(for: url, askedBy: .program))
        #expect(manager.apiKey == key)
    }
}
