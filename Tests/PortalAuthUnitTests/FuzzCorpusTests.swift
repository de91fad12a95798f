import FuzzTargets
import PortalAuth
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every seed and every kept crash of the fuzz targets (`Fuzz/Corpus/NAME`) goes through its
/// parser in the ordinary suite: a crash that fuzzing found once stays fixed.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    @Test("each target's corpus replays without a crash", arguments: FuzzTargets.all.map(\.name))
    func replay(_ name: String) throws {
        let folder = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "Fuzz/Corpus/\(name) has no seeds")
        let body = try #require(FuzzTargets.all.first { $0.name == name }?.body)
        for file in files {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
            body(Array(bytes))
        }
    }

    /// The seeds of stored credentials are named by their kind: each must read back as that kind
    /// (a format change that left them unreadable would leave fuzzing only the error paths).
    @Test("each stored-credential seed reads back as the kind it is named for")
    func storedCredentialSeedsAreReadable() throws {
        let folder = Self.corpus.appendingPathComponent("StoredCredential")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            !$0.hasPrefix("regression-") && !$0.hasPrefix("unknown-")
        }
        #expect(seeds.count >= 8)
        for seed in seeds {
            let secret = try String(contentsOf: folder.appendingPathComponent(seed), encoding: .utf8)
            let credential = try FuzzTargets.engine.decode(secret, server: "https://portal.example.com/portal")
            #expect(type(of: credential).kind == seed)
        }
    }
}
