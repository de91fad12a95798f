import Foundation
import PortalAuth
import TestSupport
import Testing

/// The file store's change stamp: the same while nothing changes (reads included), another after
/// every change, and another when a file is put in place of the file, even an identical one.
@Suite struct FileChangeStampTests {
    let alice = CredentialAttributes(store: "arcgis", server: "https://a.example.test/portal", kind: "token")

    @Test func theStampChangesWithEveryChangeAndOnlyThen() async throws {
        try await withFileStorePath { path in
            let backend = FileCredentialBackend(path: path)
            // No folder, no file yet: an empty store has a stamp too.
            let empty = try #require(backend.changeStamp)
            #expect(backend.changeStamp == empty)
            try backend.store(alice, secret: #"{"token":"one"}"#)
            let stored = try #require(backend.changeStamp)
            #expect(stored != empty)
            _ = try backend.lookup(CredentialQuery(store: "arcgis"))
            _ = try backend.search(CredentialQuery(), withSecrets: true)
            _ = try backend.contains(CredentialQuery(store: "iap"))
            #expect(try backend.delete(CredentialQuery(store: "iap")) == 0)
            #expect(backend.changeStamp == stored)
            // The same item again is a change all the same (a new file).
            try backend.store(alice, secret: #"{"token":"one"}"#)
            let again = try #require(backend.changeStamp)
            #expect(again != stored)
            #expect(try backend.delete(CredentialQuery(store: "arcgis")) == 1)
            #expect(backend.changeStamp != again)
        }
    }

    @Test func aFileOrFolderPutInPlaceOfAnotherIsAChangeEvenWithTheSameBytes() async throws {
        try await withFileStorePath { path in
            let backend = FileCredentialBackend(path: path)
            try backend.store(alice, secret: #"{"token":"one"}"#)
            let folder = (path as NSString).deletingLastPathComponent
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // Many times over, so that a freed inode would come back if the stamp did not hold it.
            for round in 0..<20 {
                let before = try #require(backend.changeStamp)
                try bytes.write(to: URL(fileURLWithPath: folder + "/copy"))
                chmod(folder + "/copy", 0o600)
                #expect(rename(folder + "/copy", path) == 0)
                #expect(backend.changeStamp != before, "round \(round)")
            }
            // The folder moved aside and a copy of it put in its place.
            let before = try #require(backend.changeStamp)
            let parent = (folder as NSString).deletingLastPathComponent
            #expect(rename(folder, parent + "/aside") == 0)
            try FileManager.default.copyItem(atPath: parent + "/aside", toPath: folder)
            #expect(backend.changeStamp != before)
            #expect(try backend.lookup(CredentialQuery(store: "arcgis")) == #"{"token":"one"}"#)
        }
    }
}
