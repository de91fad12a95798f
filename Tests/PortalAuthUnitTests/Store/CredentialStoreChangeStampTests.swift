import Foundation
import Testing

@testable import PortalAuth

/// Change stamps and what a long-running reader keeps with them: a kept reading is given back only
/// while every store's stamp is known and the same as when it was read.
@Suite struct CredentialStoreChangeStampTests {
    let a = CredentialStoreChangeStamp([1, 2, 3])
    let b = CredentialStoreChangeStamp([1, 2, 4])

    @Test func stampsAreEqualByTheirNumbersAlone() {
        #expect(a == CredentialStoreChangeStamp([1, 2, 3]))
        #expect(a != b)
        #expect(CredentialStoreChangeStamp([]) != CredentialStoreChangeStamp([0]))
        // Combined stamps keep their parts apart: [1, 2] + [3] is not [1] + [2, 3].
        #expect(
            CredentialStoreChangeStamp.combining([.init([1, 2]), .init([3])])
                != CredentialStoreChangeStamp.combining([.init([1]), .init([2, 3])]))
        #expect(
            CredentialStoreChangeStamp.combining([a, b])
                == CredentialStoreChangeStamp.combining([.init([1, 2, 3]), b]))
    }

    @Test func nothingChangedOnlyWhenEveryStampIsKnownAndTheSame() {
        #expect(CredentialStoreChangeStamp.unchanged(since: [a, b], now: [a, b]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: nil, now: [a, b]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a, b], now: [a, a]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a, b], now: [b, a]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a, b], now: [a]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a], now: [a, b]))
        // Unknown (nil) is never the same, not even as another unknown.
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a, nil], now: [a, nil]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a, b], now: [a, nil]))
        #expect(!CredentialStoreChangeStamp.unchanged(since: [a, nil], now: [a, b]))
        #expect(CredentialStoreChangeStamp.unchanged(since: [], now: []))
    }

    @Test func aKeptValueIsGivenBackWhileTheStampsStayTheSame() {
        let kept = ChangeStampedValue<[String]>(maximumAge: .seconds(3600))
        #expect(kept.value(at: [a]) == nil)
        kept.keep(["one"], readAfter: [a, b])
        #expect(kept.value(at: [a, b]) == ["one"])
        #expect(kept.value(at: [a, a]) == nil)
        #expect(kept.value(at: [a, nil]) == nil)
        #expect(kept.value(at: [a]) == nil)
        // A reading after a change replaces it.
        kept.keep(["two"], readAfter: [b, b])
        #expect(kept.value(at: [a, b]) == nil)
        #expect(kept.value(at: [b, b]) == ["two"])
        // A reading with an unknown stamp is not kept, and what was kept is forgotten.
        kept.keep(["three"], readAfter: [b, nil])
        #expect(kept.value(at: [b, b]) == nil)
        #expect(kept.value(at: [b, nil]) == nil)
    }

    @Test func manyReadersAtOnceGetOnlyAValueKeptWithTheirStamps() async {
        let kept = ChangeStampedValue<UInt64>(maximumAge: .seconds(3600))
        let stamps = (0..<8).map { CredentialStoreChangeStamp([UInt64($0)]) }
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<64 {
                group.addTask {
                    var right = true
                    for step in 0..<200 {
                        let index = (task + step) % stamps.count
                        if step % 3 == 0 { kept.keep(UInt64(index), readAfter: [stamps[index]]) }
                        if let value = kept.value(at: [stamps[index]]) { right = right && value == UInt64(index) }
                    }
                    return right
                }
            }
            for await right in group { #expect(right) }
        }
    }

    @Test func theMemoryBackendsStampChangesWithEveryChangeAndOnlyThen() throws {
        let backend = MemoryCredentialBackend()
        let attributes = CredentialAttributes(store: "arcgis", server: "https://a.example/portal", kind: "token")
        let start = try #require(backend.changeStamp)
        #expect(backend.changeStamp == start)
        try backend.store(attributes, secret: "one")
        let stored = try #require(backend.changeStamp)
        #expect(stored != start)
        _ = try backend.lookup(CredentialQuery(store: "arcgis"))
        _ = try backend.search(CredentialQuery(store: "arcgis"), withSecrets: true)
        #expect(backend.changeStamp == stored)
        // The same secret again is still a change (a reader cannot tell).
        try backend.store(attributes, secret: "one")
        let again = try #require(backend.changeStamp)
        #expect(again != stored)
        // Deleting nothing changes nothing; deleting the item does.
        #expect(try backend.delete(CredentialQuery(store: "iap")) == 0)
        #expect(backend.changeStamp == again)
        #expect(try backend.delete(CredentialQuery(store: "arcgis")) == 1)
        #expect(backend.changeStamp != again)
    }

    /// A file's stamp is given again for one `stat` while the path names the same, unchanged file
    /// (the kept stamp holds it open, so no other file can take its identity); any change of the
    /// file, or another file put in its place with the same bytes, makes another stamp.
    @Test func aFilesStampIsKeptWhileTheFileStaysTheSame() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/stamp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/index"
        try Data("one".utf8).write(to: URL(fileURLWithPath: path))
        let first = try #require(CredentialStoreChangeStamp.file(at: path))
        // The same file, unchanged: the kept stamp itself, holding the descriptor it was read through
        // (not a file opened again: a count of the process's descriptors would see other tests' files).
        // Tests stamping many other files at once may push it out of what is kept: one of a few tries.
        let again = (0..<10).map { _ in CredentialStoreChangeStamp.file(at: path) }
        #expect(again.allSatisfy { $0 == first })
        let keptOnce = (0..<20).contains { _ in
            guard let one = CredentialStoreChangeStamp.file(at: path) else { return false }
            return CredentialStoreChangeStamp.file(at: path)?.holdsTheSameFiles(as: one) == true
        }
        #expect(keptOnce)
        // Written again (another size), then replaced by a copy with the same bytes: another stamp each time.
        try Data("two!".utf8).write(to: URL(fileURLWithPath: path))
        let written = try #require(CredentialStoreChangeStamp.file(at: path))
        #expect(written != first)
        #expect(!written.holdsTheSameFiles(as: first))
        for round in 0..<5 {
            let before = try #require(CredentialStoreChangeStamp.file(at: path))
            try Data("two!".utf8).write(to: URL(fileURLWithPath: folder + "/copy"))
            #expect(rename(folder + "/copy", path) == 0)
            #expect(CredentialStoreChangeStamp.file(at: path) != before, "round \(round)")
        }
        // Gone: no stamp, or the stamp of an absent file.
        #expect(unlink(path) == 0)
        #expect(CredentialStoreChangeStamp.file(at: path) == nil)
        #expect(CredentialStoreChangeStamp.file(at: path, absent: [1]) == CredentialStoreChangeStamp([1]))
    }

    /// A backend written before stamps existed: it cannot tell, so readers always read again.
    @Test func aBackendWithoutStampsCannotTell() {
        struct Old: CredentialStorageBackend {
            let name = "old"
            let location = "nowhere"
            let isBlocking = false
            let isPersistent = false
            func lookup(_ query: CredentialQuery) throws -> String? { nil }
            func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] { [] }
            func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {}
            func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int { 0 }
            func checkAvailable() throws {}
        }
        #expect(Old().changeStamp == nil)
        let kept = ChangeStampedValue<Int>(maximumAge: .seconds(3600))
        kept.keep(1, readAfter: [Old().changeStamp])
        #expect(kept.value(at: [Old().changeStamp]) == nil)
    }
}

/// The context path read as bytes gives what the reading of the lower-cased string gave.
@Suite struct ContextPathTests {
    /// The reading before it was made byte-wise.
    static func reference(_ path: String) -> String {
        let lower = path.lowercased()
        for marker in ["/sharing", "/rest", "/tokens", "/admin"] {
            let cut: String.Index?
            if let range = lower.firstRange(of: marker + "/") {
                cut = range.lowerBound
            } else if lower.hasSuffix(marker) {
                cut = lower.index(lower.endIndex, offsetBy: -marker.count)
            } else {
                cut = nil
            }
            if let cut { return String(path.utf8.prefix(lower.utf8.distance(from: lower.startIndex, to: cut)))! }
        }
        return path
    }

    @Test(arguments: [
        "", "/", "/rest", "/REST", "/arcgis/rest/services/A/FeatureServer/0", "/portal/sharing/rest/portals/self",
        "/Portal/SHARING/Rest", "/arcgis/restaurant/rest", "/a/tokens", "/a/tokens/generateToken", "/x/admin/rest/y",
        "/server/rest/services/Parcels/FeatureServer/0/query", "/restx/rest", "/a/Admin", "/shar", "/sharing",
        "/a%2Frest/rest/", "/a/sharingx/sharing/rest", "rest", "/rest/", "//rest//",
    ])
    func theSameAsTheStringReading(_ path: String) {
        #expect(ServerContext.contextPath(of: path) == Self.reference(path))
    }

    /// A kept value is given back for at most its maximum age, whatever the stamps say: a change
    /// that leaves no stamp behind counts within that time.
    @Test func aKeptValueIsGivenBackForItsMaximumAgeAtMost() {
        let kept = ChangeStampedValue<Int>(maximumAge: .seconds(2))
        let a = CredentialStoreChangeStamp([1, 2, 3])
        let b = CredentialStoreChangeStamp([1, 2, 4])
        let readAt = ContinuousClock.now
        kept.keep(7, readAfter: [a], readAt: readAt)
        #expect(kept.value(at: [a], now: readAt + .milliseconds(1999)) == 7)
        #expect(kept.value(at: [a], now: readAt + .seconds(2)) == nil)
        #expect(kept.value(at: [b], now: readAt + .milliseconds(1)) == nil)
        #expect(ChangeStampedValue<Int>().maximumAge == .seconds(2))
    }
}
