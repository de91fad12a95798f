import Foundation
import Testing

/// The CLI (Sources/portal-auth) has no way to a credential but the library's write path: it
/// imports no C module (so neither libsecret nor the library's C shims), and its sources name no
/// route around the library to the keyring or the file store. Together with CLITests'
/// `WritePathTests` (every other write through the library fails to compile as the CLI's sources
/// do), a write added to the CLI any other way fails here.
@Suite struct CLIWriteRoutesTests {
    /// The checkout's Sources/portal-auth, from this file's place in it.
    static let cliSources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/portal-auth")

    /// Every Swift file of the CLI, with its text.
    static func sources() throws -> [(path: String, text: String)] {
        let files = FileManager.default.enumerator(atPath: cliSources.path)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: cliSources.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The modules `text` imports (`import X`, `internal import X`, `@preconcurrency import X`, …).
    static func importedModules(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) })
            else { return nil }
            return words[index + 1].split(separator: ".").first.map(String.init)
        }
    }

    /// Names of C targets (the package's rule: C only in `C*` targets).
    static func isCModule(_ name: String) -> Bool {
        name.count > 1 && name.first == "C" && name.dropFirst().first!.isUppercase
    }

    /// What a write around the library would name: the keyring's own tool and calls, the file
    /// store's contents, the backends' write access.
    static let forbidden = [
        "secret-tool", "secret_password_", "secret_item_", "secret_service_", "secret_collection_",
        "org.freedesktop.secrets", "encodeContents", "FileContents", "CredentialWriteAccess",
    ]

    @Test func theScannerReadsTheCLIsSources() throws {
        let sources = try Self.sources()
        #expect(sources.count > 50)
        #expect(sources.contains { Self.importedModules($0.text).contains("PortalAuth") })
        #expect(
            Self.importedModules("internal import CPortalAuth\n@preconcurrency import CLibSecret") == [
                "CPortalAuth", "CLibSecret",
            ])
        #expect(Self.isCModule("CPortalAuth") && !Self.isCModule("CommandSpelling"))
    }

    @Test func theCLIImportsNoCModule() throws {
        for (path, text) in try Self.sources() {
            for module in Self.importedModules(text) {
                #expect(!Self.isCModule(module), "Sources/portal-auth/\(path) imports the C module \(module)")
            }
        }
    }

    @Test func theCLINamesNoRouteAroundTheLibrarysWritePath() throws {
        for (path, text) in try Self.sources() {
            for word in Self.forbidden {
                let named = text.contains(word)  // (a Bool, so that a failure does not print the file)
                #expect(!named, "Sources/portal-auth/\(path) names \(word)")
            }
        }
    }
}
