import Foundation
import TestSupport
import Testing

/// The CLI writes a credential only through the library's write path (`commit`, `forget` and
/// what is built on them, under the scope's lock): a file compiled exactly as the CLI's own
/// sources are (same package, so `package` symbols are as visible to it; same imports and flags,
/// read from the build's description.json) fails to compile on every other way to write or
/// delete an item, and compiles with the write path's calls.
@Suite struct WritePathTests {
    /// The calls that must not compile, one a line: the storage layer's own writes, the backends'
    /// writes (which take a ``CredentialWriteAccess`` only the library makes), and the engine.
    static let forbidden = [
        "_ = CredentialWriteAccess()",
        "try backend.store(CredentialAttributes(store: \"arcgis\", server: \"s\", kind: \"k\"), secret: \"x\")",
        "try backend.store(CredentialAttributes(store: \"arcgis\", server: \"s\", kind: \"k\"), secret: \"x\", "
            + "replacing: CredentialQuery())",
        "_ = try backend.delete(CredentialQuery())",
        "try await arcGIS.add(credential)",
        "_ = try await arcGIS.remove(.serverContext(context))",
        "_ = try await arcGIS.remove(context)",
        "_ = try await arcGIS.removeAll()",
        "_ = try await arcGIS.removeAllAccounts()",
        "try await arcGIS.accountStore(username: \"u\").add(credential)",
        "_ = try await network.remove(context, kind: nil)",
        "_ = try await network.removeAll()",
        "_ = try await iap.remove(\"identifier\")",
        "_ = try await iap.removeAll()",
        "_ = arcGIS.engine",
        // What the package's own targets see (`package`): an account's backend, an engine, the
        // storage layer's bulk and derived-token deletes.
        "try AccountCredentialBackend(base: backend, username: \"u\").store("
            + "CredentialAttributes(store: \"arcgis\", server: \"s\", kind: \"k\"), secret: \"x\")",
        "_ = try AccountCredentialBackend(base: backend, username: \"u\").delete(CredentialQuery())",
        "_ = try await CredentialStoreEngine(backend: backend, storeName: \"arcgis\").delete(CredentialQuery())",
        "_ = try await arcGIS.forgetEveryItem(of: \"arcgis\")",
        "_ = try await arcGIS.removeDerivedTokens(of: context, in: arcGIS)",
    ]

    /// The write path's calls, which must compile (so a failure above is the access, not the harness).
    static let allowed = [
        "_ = try await arcGIS.commit(credential, origin: .signIn)",
        "_ = try await arcGIS.forget(.serverContext(context))",
        "_ = try await network.forget(.host(context), kind: \"password\")",
        "_ = try await arcGIS.removeAccount(context, username: \"u\")",
        "try await RememberedPasswords(backend: backend).save(\"pw\", for: context, username: \"u\")",
        "_ = try await RememberedPasswords(backend: backend).forget(for: context)",
        "_ = try ServeSecretItem.current(in: backend, renew: false, isUsable: { _ in true }, make: { \"s\" })",
        "_ = try backend.search(CredentialQuery(), withSecrets: false)",
    ]

    /// A source file calling `lines`, each on a line of its own; returns it and the line numbers.
    static func source(_ lines: [String]) -> (text: String, lines: [Int]) {
        let header = """
            import PortalAuth

            func calls(
                backend: any CredentialStorageBackend, arcGIS: ArcGISCredentialStore, network: NetworkCredentialStore,
                iap: IAPCredentialStore, credential: any ArcGISCredential, context: ServerContext
            ) async throws {
            """
        let first = header.split(separator: "\n", omittingEmptySubsequences: false).count + 1
        return (
            header + "\n" + lines.map { "    " + $0 }.joined(separator: "\n") + "\n}\n",
            Array(first..<first + lines.count)
        )
    }

    /// Whether `key` (`C.TARGET-TRIPLE-CONFIGURATION.module`) names the CLI's target, `portal-auth`:
    /// not `portal-auth-front`, `portal-auth-benchmark` or the test products.
    static func isCLIModule(_ key: String) -> Bool {
        guard key.hasPrefix("C.portal-auth-"), key.hasSuffix(".module") else { return false }
        let rest = key.dropFirst("C.portal-auth-".count)
        return rest.hasPrefix("x86_64-") || rest.hasPrefix("aarch64-") || rest.hasPrefix("arm64-")
    }

    /// Type-checks `text` as the CLI's sources are compiled; returns the exit status and the
    /// lines with an error.
    static func typeCheck(_ text: String) async throws -> (status: Int32, errorLines: Set<Int>, output: String) {
        let build = CLI.binDirectory
        let description =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: build.appendingPathComponent("description.json"))) as! [String: Any]
        let commands = description["swiftCommands"] as! [String: [String: Any]]
        let cli = try #require(
            commands.first { Self.isCLIModule($0.key) }?.value)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("write-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Writes.swift")
        try text.write(to: file, atomically: true, encoding: .utf8)
        var arguments = ["-typecheck", "-module-name", "WritePathCheck", "-I", cli["importPath"] as! String]
        // The CLI's flags, without those of an incremental build of its own module.
        var flags = (cli["otherArguments"] as! [String])[...]
        let dropped: Set<String> = [
            "-incremental", "-enable-batch-mode", "-serialize-diagnostics", "-parseable-output", "-warnings-as-errors",
        ]
        while let flag = flags.popFirst() {
            if dropped.contains(flag) || flag.hasPrefix("-j") { continue }
            if flag == "-index-store-path" {
                _ = flags.popFirst()
                continue
            }
            if flag == "-Xfrontend", flags.first == "-entry-point-function-name" {
                flags = flags.dropFirst(3)
                continue
            }
            arguments.append(flag)
        }
        let result = try await CLI.run(cli["executable"] as! String, arguments + [file.path], timeout: 300)
        let output = result.stdout + result.stderr
        var lines = Set<Int>()
        for line in output.split(separator: "\n") where line.hasPrefix(file.path + ":") && line.contains(": error: ") {
            if let number = Int(line.dropFirst(file.path.count + 1).prefix { $0.isNumber }) { lines.insert(number) }
        }
        return (result.status, lines, output)
    }

    @Test func theWritePathCompilesAsTheCLIsSourcesDo() async throws {
        let (text, _) = Self.source(Self.allowed)
        let result = try await Self.typeCheck(text)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func everyOtherWriteFailsToCompileAsTheCLIsSourcesDo() async throws {
        let (text, lines) = Self.source(Self.forbidden)
        let result = try await Self.typeCheck(text)
        #expect(result.status != 0)
        for (call, line) in zip(Self.forbidden, lines) {
            #expect(result.errorLines.contains(line), "compiles in the CLI: \(call)\n\(result.output)")
        }
    }
}
