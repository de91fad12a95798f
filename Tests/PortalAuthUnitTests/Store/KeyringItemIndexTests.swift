import Foundation
import TestSupport
import Testing

@testable import PortalAuth

/// The keyring's item index: where lookups last found their items, and whether a query matched.
@Suite struct KeyringItemIndexTests {
    let a = CredentialQuery(store: "arcgis", server: "https://a.example/portal")
    let b = CredentialQuery(store: "arcgis", server: "https://b.example/portal")

    @Test func entriesAreKeptPerQueryAndKindAndSurviveTheirText() {
        var index = KeyringItemIndex()
        index.set(.item(path: "/org/freedesktop/secrets/collection/login/7"), for: a)
        index.set(.has(false), for: a)
        index.set(.has(true), for: b)
        #expect(index.itemPath(a) == "/org/freedesktop/secrets/collection/login/7")
        #expect(index.itemPath(b) == nil)
        #expect(index.has(a) == false)
        #expect(index.has(b) == true)
        // A field that is absent and one that is empty are different queries.
        #expect(index.has(CredentialQuery(store: "arcgis", server: "https://a.example/portal", kind: "")) == nil)
        #expect(index.has(CredentialQuery(store: "arcgis")) == nil)

        let read = KeyringItemIndex(parsing: index.text)
        #expect(read == index)
        #expect(read.itemPath(a) == "/org/freedesktop/secrets/collection/login/7")
        // Set again: the newer entry replaces the older one.
        var changed = read
        changed.set(.item(path: "/org/freedesktop/secrets/collection/login/9"), for: a)
        #expect(KeyringItemIndex(parsing: changed.text).itemPath(a) == "/org/freedesktop/secrets/collection/login/9")
        #expect(changed.text.split(separator: "\n").count == 4)
    }

    /// A `none` entry (a lookup found no item) survives its text until it lapses, and an item found
    /// replaces it, and the other way round; it says nothing of `has` or of another query.
    @Test func aLookupThatFoundNoItemIsAnEntryThatLapsesAndThatAnItemReplaces() {
        let now = 2_000_000_000
        var index = KeyringItemIndex()
        index.set(.noItem(until: now + 30), for: a)
        #expect(index.hasNoItem(a, now: now))
        #expect(index.hasNoItem(a, now: now + 29))
        #expect(!index.hasNoItem(a, now: now + 30))
        #expect(!index.hasNoItem(b, now: now))
        #expect(index.has(a) == nil)
        #expect(index.itemPath(a) == nil)
        #expect(KeyringItemIndex(parsing: index.text).hasNoItem(a, now: now))
        index.set(.item(path: "/org/freedesktop/secrets/collection/login/3"), for: a)
        #expect(!index.hasNoItem(a, now: now))
        #expect(index.itemPath(a) == "/org/freedesktop/secrets/collection/login/3")
        index.set(.noItem(until: now + 30), for: a)
        #expect(index.itemPath(a) == nil)
        #expect(index.hasNoItem(a, now: now))
        #expect(index.text.split(separator: "\n").count == 2)
        // The value is a time in seconds: digits only.
        let key = index.text.split(separator: "\n")[1].split(separator: " ")[0]
        for value in ["", "x", "-5", "1e9", "1234567890123"] {
            let text = "portal-auth keyring index 1\n\(key) \(value)\n"
            #expect(KeyringItemIndex(parsing: text) == KeyringItemIndex(), "\(value)")
        }
    }

    @Test func theIndexKeepsTheNewestEntriesUpToItsCapacity() {
        var index = KeyringItemIndex()
        let queries = (0..<(KeyringItemIndex.capacity + 10)).map { CredentialQuery(server: "https://h\($0).example") }
        for query in queries { index.set(.has(true), for: query) }
        #expect(queries.prefix(10).allSatisfy { index.has($0) == nil })
        #expect(queries.dropFirst(10).allSatisfy { index.has($0) == true })
        #expect(index.text.utf8.count < KeyringItemIndex.maximumSize)
    }

    @Test func whatIsNotAnEntryIsLeftOut() {
        var valid = KeyringItemIndex()
        valid.set(.has(true), for: a)
        let line = valid.text.split(separator: "\n")[1]
        let key = line.split(separator: " ")[0]
        let itemKey = "item:" + key.dropFirst("has:".count)
        for text in [
            "", "portal-auth keyring index 2\n\(line)\n", "\(line)\n",
            "portal-auth keyring index 1\n\(key) 2\n", "portal-auth keyring index 1\n\(key)  1\n",
            "portal-auth keyring index 1\n\(itemKey) relative/path\n",
            "portal-auth keyring index 1\n\(itemKey) /a//b\n", "portal-auth keyring index 1\n\(itemKey) /a/\n",
            "portal-auth keyring index 1\n\(itemKey) /a/b-c\n",
            "portal-auth keyring index 1\nother:\(key.dropFirst(4)) 1\n",
            "portal-auth keyring index 1\n\(key) 1 extra\n",
        ] {
            #expect(KeyringItemIndex(parsing: text) == KeyringItemIndex(), "\(text.debugDescription)")
        }
        #expect(KeyringItemIndex(parsing: "portal-auth keyring index 1\n\(key) 0\r\n\(line)\n").has(a) == true)
        var notAPath = KeyringItemIndex()
        notAPath.set(.item(path: "/a/../b"), for: a)
        #expect(notAPath == KeyringItemIndex())
    }

    @Test func theFileIsPrivateReplacedWholeAndRemovable() async throws {
        try await withTemporaryDirectory("pa-index") { directory in
            let fd = open(directory, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            let folder = CrossProcessLock.Folder(descriptor: fd, path: directory)
            #expect(KeyringItemIndex.read(in: folder, name: "k.index") == KeyringItemIndex())
            var index = KeyringItemIndex()
            index.set(.item(path: "/org/freedesktop/secrets/collection/login/1"), for: a)
            index.write(in: folder, name: "k.index")
            #expect(KeyringItemIndex.read(in: folder, name: "k.index") == index)
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/k.index")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["k.index"])

            // A file too large to be an index, or a symbolic link, reads as an empty index.
            try Data(count: KeyringItemIndex.maximumSize + 1).write(to: URL(fileURLWithPath: directory + "/big.index"))
            #expect(KeyringItemIndex.read(in: folder, name: "big.index") == KeyringItemIndex())
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/link.index", withDestinationPath: directory + "/k.index")
            #expect(KeyringItemIndex.read(in: folder, name: "link.index") == KeyringItemIndex())

            // Removing one index removes the folder's other index files too (the same keyring named
            // another way keeps its own), and nothing else.
            #expect(FileManager.default.createFile(atPath: directory + "/other.lock", contents: Data()))
            try KeyringItemIndex.remove(in: folder, name: "k.index")
            try KeyringItemIndex.remove(in: folder, name: "k.index")
            #expect(!FileManager.default.fileExists(atPath: directory + "/k.index"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["other.lock"])
        }
    }
}
