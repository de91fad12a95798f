import Foundation
import PortalAuthToken
import PortalEmulator
import TestSupport
import Testing

@testable import PortalAuth

/// A server URL no other test uses, so tests sharing the session keyring never see each other.
func uniqueServer(_ name: String = #function) -> String {
    "https://\(name.filter(\.isLetter).lowercased().prefix(20)).example.test/\(UUID().uuidString.prefix(8))/portal"
}

func temporaryPath(_ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-store-\(UUID().uuidString.prefix(8))")
    return dir.appendingPathComponent(name).path
}

/// Runs `body` with a file store's path in a folder of its own (the store makes the folder), and
/// removes the folder afterwards.
func withFileStorePath<T>(_ body: (String) async throws -> T) async throws -> T {
    try await withTemporaryDirectory("pa-store") { folder in try await body(folder + "/store/credentials.json") }
}

/// The three backends, each behind the same contract.
enum BackendUnderTest: String, CaseIterable, Sendable {
    case memory, file, keyring
    /// A backend of this kind; a file backend keeps its file at `path`.
    func make(path: String) -> any CredentialStorageBackend {
        switch self {
        case .memory: return MemoryCredentialBackend()
        case .file: return FileCredentialBackend(path: path)
        case .keyring: return KeyringCredentialBackend()
        }
    }
}

@Suite struct StorageBackendContractTests {
    @Test(arguments: BackendUnderTest.allCases)
    func storeLookupSearchReplaceAndDelete(_ kind: BackendUnderTest) async throws {
        try await withFileStorePath { path in
            let backend = kind.make(path: path)
            try backend.checkAvailable()
            let server = uniqueServer("contract\(kind)")
            let alice = CredentialAttributes(store: "arcgis", server: server, kind: "token", username: "alice")
            let network = CredentialAttributes(store: "network", server: server, kind: "password", username: "alice")

            #expect(try backend.lookup(CredentialQuery(store: "arcgis", server: server)) == nil)
            #expect(try !backend.contains(CredentialQuery(server: server)))
            try backend.store(alice, secret: #"{"token":"one"}"#)
            try backend.store(network, secret: "net-secret")
            // contains answers as a search would (the keyring's without a session or a secret).
            #expect(try backend.contains(CredentialQuery(store: "arcgis", server: server)))
            #expect(try backend.contains(CredentialQuery(store: "network", server: server, kind: "password")))
            #expect(try !backend.contains(CredentialQuery(store: "arcgis", server: server, kind: "password")))
            #expect(try backend.lookup(CredentialQuery(store: "arcgis", server: server)) == #"{"token":"one"}"#)

            // Storing the same attributes again replaces the item instead of adding one.
            try backend.store(alice, secret: #"{"token":"two"}"#)
            let items = try backend.search(CredentialQuery(server: server), withSecrets: true)
            #expect(items.count == 2)
            #expect(items.contains(StoredCredentialItem(attributes: alice, secret: #"{"token":"two"}"#)))
            #expect(items.contains(StoredCredentialItem(attributes: network, secret: "net-secret")))

            // Listing without secrets never reads them.
            let listed = try backend.search(CredentialQuery(store: "arcgis", server: server), withSecrets: false)
            #expect(listed.map(\.attributes) == [alice])
            #expect(listed.allSatisfy { $0.secret == nil })

            #expect(try backend.delete(CredentialQuery(store: "arcgis", server: server)) == 1)
            #expect(try backend.lookup(CredentialQuery(store: "arcgis", server: server)) == nil)
            #expect(try backend.lookup(CredentialQuery(store: "network", server: server)) == "net-secret")
            #expect(try backend.delete(CredentialQuery(server: server)) == 1)
            #expect(try backend.search(CredentialQuery(server: server), withSecrets: false).isEmpty)
            #expect(try !backend.contains(CredentialQuery(server: server)))
        }
    }
}

// (Serialized: two of its tests spend the process's budget of noted misses, KeyringCredentialBackend.maximumNoItemNotes.)
@Suite(.serialized) struct KeyringBackendTests {
    @Test func itemsCarryTheDocumentedAttributesAndAReadableLabelAndNothingSecret() async throws {
        let backend = KeyringCredentialBackend()
        let server = uniqueServer()
        let secret = #"{"token":"kr-secret-\#(UUID().uuidString)"}"#
        try backend.store(
            CredentialAttributes(store: "arcgis", server: server, kind: "token", username: "alice"), secret: secret)
        defer { _ = try? backend.delete(CredentialQuery(server: server)) }

        let listing = try await Subprocess.run(
            "/usr/bin/secret-tool", ["search", "--all", "application", "portal-auth", "server", server])
        let text = listing.stdout + listing.stderr
        #expect(text.contains("label = portal-auth: alice @ \(server)"))
        #expect(text.contains("attribute.application = portal-auth"))
        #expect(text.contains("attribute.server = \(server)"))
        #expect(text.contains("attribute.kind = token"))
        #expect(text.contains("attribute.username = alice"))
        let metadata = text.split(separator: "\n").filter { $0.hasPrefix("attribute.") || $0.hasPrefix("label") }
        #expect(metadata.allSatisfy { !$0.contains("kr-secret") })
        // The secret itself is what secret-tool looks up.
        let lookup = try await Subprocess.run(
            "/usr/bin/secret-tool", ["lookup", "application", "portal-auth", "server", server, "kind", "token"])
        #expect(lookup.stdout == secret)
    }

    /// The fast read (a `plain` Secret Service session over GDBus) returns exactly what libsecret's
    /// read (a Diffie-Hellman session) and `secret-tool` return, for secrets of every shape; it
    /// takes the item libsecret takes when several match, and finds nothing where libsecret does.
    @Test func thePlainSessionReadReturnsWhatLibsecretReturns() async throws {
        let backend = KeyringCredentialBackend()
        let server = uniqueServer()
        defer { _ = try? backend.delete(CredentialQuery(server: server)) }
        let secrets = [
            #"{"token":"t-\#(UUID().uuidString)"}"#, "ünïcødé ✓ \u{1F511} 鍵", "line\nbreak\ttab 'quote' \"dq\" \\",
            String(repeating: "0123456789abcdef", count: 4096), "x",
        ]
        for (i, secret) in secrets.enumerated() {
            let attributes = CredentialAttributes(store: "arcgis", server: server, kind: "k\(i)", username: "alice")
            try backend.store(attributes, secret: secret)
            let query = CredentialQuery(store: "arcgis", server: server, kind: "k\(i)")
            let plain = try backend.lookup(query, through: .plainSessionOnly)
            #expect(plain == secret, "secret \(i)")
            #expect(try backend.lookup(query) == secret, "secret \(i)")
            #expect(try backend.lookup(query, through: .libsecretOnly) == secret, "secret \(i)")
            let tool = try await Subprocess.run(
                "/usr/bin/secret-tool", ["lookup", "application", "portal-auth", "server", server, "kind", "k\(i)"])
            #expect(tool.stdout == plain, "secret \(i)")
        }
        // Several matches: the same item either way; no match: nil either way.
        let several = CredentialQuery(store: "arcgis", server: server)
        let first = try backend.lookup(several, through: .plainSessionOnly)
        #expect(first != nil)
        #expect(first == (try backend.lookup(several, through: .libsecretOnly)))
        let none = CredentialQuery(store: "arcgis", server: server, kind: "none")
        #expect(try backend.lookup(none, through: .plainSessionOnly) == nil)
        #expect(try backend.lookup(none) == nil)
        #expect(try backend.lookup(none, through: .libsecretOnly) == nil)
    }

    /// A lookup that found no item is noted in the item index and answered there, without a
    /// search, until portal-auth next changes the keyring (a long URL's candidate contexts are each
    /// looked up, and all but one miss): an item another program adds meanwhile is not seen, as
    /// ``KeyringItemIndex`` documents; after portal-auth's next change it is. Other tests change the
    /// keyring at any moment (which removes the index), so a round counts only when the index stayed
    /// the same file across the second lookup.
    @Test func aLookupThatFoundNoItemIsAnsweredByTheIndexUntilTheKeyringChanges() async throws {
        let backend = KeyringCredentialBackend()
        var conclusive = 0
        for round in 0..<100 where conclusive < 3 {
            let server = uniqueServer() + "/\(round)"
            defer { _ = try? backend.delete(CredentialQuery(server: server)) }
            let query = CredentialQuery(store: "arcgis", server: server)
            // (A process notes a few misses only; the tests share one.)
            KeyringCredentialBackend.resetNoItemNotes()
            #expect(try backend.lookup(query, verifying: { _ in true }) == nil)
            let before = backend.changeStamp
            let stored = try await Subprocess.run(
                "/usr/bin/secret-tool",
                ["store", "--label=outside", "application", "portal-auth", "store", "arcgis", "server", server],
                stdin: "outside")
            #expect(stored.status == 0)
            let answer = try backend.lookup(query, verifying: { _ in true })
            guard let before, backend.changeStamp == before else { continue }
            conclusive += 1
            #expect(answer == nil, "round \(round): the index's entry was not used")
            // A plain lookup searches; and portal-auth's own change (here of another item) removes the index.
            #expect(try backend.lookup(query) == "outside")
            let other = uniqueServer() + "/other\(round)"
            try backend.store(CredentialAttributes(store: "arcgis", server: other, kind: "token"), secret: "x")
            _ = try backend.delete(CredentialQuery(server: other))
            #expect(try backend.lookup(query, verifying: { _ in true }) == "outside")
        }
        #expect(conclusive == 3, "the keyring changed under every round")
    }

    /// A process notes at most ``KeyringCredentialBackend/maximumNoItemNotes`` misses: each note
    /// rewrites the index (and so moves the keyring's change stamp), and a long-lived reader of many
    /// URLs must not. A round counts only when no other test changed the keyring during its last lookup.
    @Test func aProcessNotesOnlyAFewMisses() throws {
        let backend = KeyringCredentialBackend()
        let prefix = uniqueServer()
        var conclusive = false
        for round in 0..<50 where !conclusive {
            KeyringCredentialBackend.resetNoItemNotes()
            for miss in 0..<KeyringCredentialBackend.maximumNoItemNotes {
                let query = CredentialQuery(store: "arcgis", server: "\(prefix)/\(round)/\(miss)")
                #expect(try backend.lookup(query, verifying: { _ in true }) == nil)
            }
            let before = backend.changeStamp
            let last = CredentialQuery(store: "arcgis", server: "\(prefix)/\(round)/last")
            #expect(try backend.lookup(last, verifying: { _ in true }) == nil)
            conclusive = before != nil && backend.changeStamp == before
        }
        #expect(conclusive, "a miss past the budget rewrote the index (or the keyring changed under every round)")
    }
}

@Suite struct FileBackendTests {
    @Test func theFileAndItsFolderArePrivate() async throws {
        try await withFileStorePath { path in
            let backend = FileCredentialBackend(path: path)
            try backend.store(CredentialAttributes(store: "arcgis", server: uniqueServer(), kind: "token"), secret: "s")
            let file = try FileManager.default.attributesOfItem(atPath: path)
            let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
            #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            // No temporary file is left behind.
            let names = try FileManager.default.contentsOfDirectory(
                atPath: (path as NSString).deletingLastPathComponent)
            #expect(Set(names).isSubset(of: ["credentials.json", "credentials.json.lock"]))
        }
    }

    @Test func aFileOthersMayReadIsRefusedNotFixedAndNotOverwritten() async throws {
        try await withFileStorePath { path in
            let backend = FileCredentialBackend(path: path)
            let server = uniqueServer()
            try backend.store(CredentialAttributes(store: "arcgis", server: server, kind: "token"), secret: "keep-me")
            chmod(path, 0o644)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = #expect(throws: PortalAuthError.self) {
                try backend.store(
                    CredentialAttributes(store: "arcgis", server: uniqueServer(), kind: "token"), secret: "new")
            }
            #expect(error?.code == .storeFailure)
            #expect(error?.remedy == .makePrivate(path: path))
            #expect(throws: PortalAuthError.self) { try backend.lookup(CredentialQuery(server: server)) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o644)
        }
    }

    @Test func aCorruptFileIsReportedAndLeftAlone() async throws {
        try await withFileStorePath { path in
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            let garbage = Data("{ not json".utf8)
            _ = FileManager.default.createFile(atPath: path, contents: garbage, attributes: [.posixPermissions: 0o600])
            let backend = FileCredentialBackend(path: path)
            let error = #expect(throws: PortalAuthError.self) {
                try backend.store(
                    CredentialAttributes(store: "arcgis", server: uniqueServer(), kind: "token"), secret: "s")
            }
            #expect(error?.code == .storeFailure)
            #expect(error?.message.contains("not valid JSON") == true)
            #expect(error?.remedy == .moveAside(path: path))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    @Test func concurrentWritersFromManyThreadsLoseNothing() async throws {
        try await withFileStorePath { path in
            let servers = (0..<40).map { "https://site\($0).example.test/portal" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for server in servers {
                    group.addTask {
                        // A backend per writer, as separate processes would have.
                        try FileCredentialBackend(path: path).store(
                            CredentialAttributes(store: "arcgis", server: server, kind: "token"), secret: server)
                    }
                }
                try await group.waitForAll()
            }
            let items = try FileCredentialBackend(path: path).search(.all, withSecrets: true)
            #expect(Set(items.map(\.attributes.server)) == Set(servers))
            #expect(items.allSatisfy { $0.secret == $0.attributes.server })
        }
    }
}

@Suite struct KeyringThroughTheManagerTests {
    /// The whole path: sign in with one manager, then a new manager (as a new process would)
    /// finds the credential in the Secret Service and never asks or generates again.
    @Test func aNewManagerUsesTheStoredCredentialWithoutSigningInAgain() async throws {
        try await Fixture.with(backend: KeyringCredentialBackend()) { fixture in
            // Only this test's item goes afterwards (awaited, before the emulator stops):
            // clearCredentialStores() would also remove the items of tests running beside it in
            // the same keyring.
            let portal = try ServerContext(fixture.emulator.portalURL)
            try await withResource(
                portal, release: { _ = try? await fixture.manager.arcGISCredentialStore.forget(.serverContext($0)) }
            ) { _ in try await newManagerUsesTheStoredCredential(fixture) }
        }
    }

    func newManagerUsesTheStoredCredential(_ fixture: Fixture) async throws {
        let first = try await fixture.manager.send(ArcGISRequest(url: fixture.communitySelf))
        #expect(first.json?["username"]?.stringValue == "alice")
        #expect(fixture.emulator.counters().generateTokenRequests == 1)

        let provider = CountingProvider()
        let second = AuthenticationManager(
            backend: KeyringCredentialBackend(),
            transport: CurlTransport(
                configuration: TransportConfiguration(caBundlePath: fixture.emulator.caCertificatePath, timeout: 30)))
        second.register(TokenAuthenticationHandler(provider: provider))
        let again = try await second.send(ArcGISRequest(url: fixture.communitySelf))
        #expect(again.json?["username"]?.stringValue == "alice")
        #expect(provider.calls == 0)
        #expect(fixture.emulator.counters().generateTokenRequests == 1)

        // Passwords are not persisted: the stored secret has the token, never the password.
        let secret = try KeyringCredentialBackend().lookup(
            CredentialQuery(store: "arcgis", server: fixture.emulator.portalURL))
        #expect(secret?.contains("alice-pass-123") == false)
        #expect(secret?.contains("token") == true)
    }
}
