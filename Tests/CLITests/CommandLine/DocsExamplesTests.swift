import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The examples of README.md and every `docs/*.md`, run as printed against portal-emulator, with
/// the real keyring (a private one) and the real clients (curl, wget, GDAL, python): each block
/// marked `<!-- test: expect "TEXT" -->` must succeed and print TEXT. A document's blocks run in
/// order in one bash session, as a reader would paste them, in a fixture of the document's own:
/// a fresh emulator, keyring and folder, with the emulator's state file as `emulator.json` in
/// that folder and no CA variables set, so each document starts with the line that sets them
/// (`eval "$(portal-emulator env emulator.json)"`) and with any sign-in it needs.
@Suite struct DocsExamplesTests {
    /// A marked code block, and what it must print.
    struct Example: Sendable {
        var script: String
        var expected: String
    }

    /// A document and its marked blocks, in order.
    struct Document: Sendable, CustomTestStringConvertible {
        var path: String
        var examples: [Example]
        var testDescription: String { path }
    }

    /// The repository's root folder.
    static var root: URL {
        URL(fileURLWithPath: RealClients.repositoryRoot)
    }

    /// The variables `portal-emulator env` sets: the fixture leaves them out, so that a document
    /// whose examples work has set them itself.
    static let sessionVariables = [
        "PORTAL_AUTH_CA_BUNDLE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "SYSTEM_WGETRC",
        "PORTAL", "PORTAL_URL", "SERVER_URL", "LAYER",
    ]

    /// The marked blocks of one Markdown text, in order.
    static func examples(in text: String) -> [Example] {
        let marker = "<!-- test: expect \""
        var examples: [Example] = []
        for chunk in text.components(separatedBy: marker).dropFirst() {
            guard let close = chunk.range(of: "\" -->\n```sh\n"),
                let end = chunk.range(of: "\n```\n", range: close.upperBound..<chunk.endIndex)
            else {
                Issue.record("a test marker without a ```sh block after it: \(chunk.prefix(80))")
                continue
            }
            let expected = String(chunk[..<close.lowerBound]).replacing("\\\"", with: "\"")
            examples.append(Example(script: String(chunk[close.upperBound..<end.lowerBound]), expected: expected))
        }
        return examples
    }

    /// README.md and every `.md` under `docs/` (its guides, `reference/` and `development/`), each
    /// with its marked blocks (documents without any too).
    static func documents() throws -> [Document] {
        let docs = root.appendingPathComponent("docs")
        let names = try FileManager.default.subpathsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        return try (["README.md"] + names.map { "docs/" + $0 }).map { path in
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            return Document(path: path, examples: examples(in: text))
        }
    }

    /// The documents that have marked blocks.
    static func documentsWithExamples() throws -> [Document] {
        try documents().filter { !$0.examples.isEmpty }
    }

    /// The fixture's variables: the test's store (a private keyring), its folder on PATH's side,
    /// and none of the emulator's session variables.
    static func environment(_ use: TokenUse, _ keyring: PrivateKeyring) -> [String: String] {
        var environment = use.environment.merging(keyring.environment) { $1 }
        for name in sessionVariables { environment.removeValue(forKey: name) }
        environment["PORTAL_AUTH_STORE"] = "keyring"
        environment.removeValue(forKey: "PORTAL_AUTH_FILE_STORE")
        return environment
    }

    /// Writes the emulator's state file into the fixture's folder, as `portal-emulator
    /// --state-file emulator.json` does.
    static func writeStateFile(_ use: TokenUse) throws {
        let emulator = use.emulator
        let state: [String: Any] = [
            "pid": Int(ProcessInfo.processInfo.processIdentifier), "port": emulator.port,
            "baseURL": emulator.baseURL, "portalURL": emulator.portalURL, "serverURL": emulator.serverURL,
            "standaloneServerURL": emulator.standaloneServerURL, "caCertificatePath": emulator.caCertificatePath,
            "entraBaseURL": emulator.entraBaseURL,
        ]
        let data = try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys, .withoutEscapingSlashes])
        try data.write(to: URL(fileURLWithPath: use.directory + "/emulator.json"))
    }

    /// The line printed before block `index`, on stdout and stderr.
    static func separator(_ index: Int) -> String { "@@docs-example \(index)@@" }

    @Test func theExamplesAreFound() throws {
        let documents = try Self.documentsWithExamples()
        let count = documents.reduce(0) { $0 + $1.examples.count }
        #expect(count >= 10, "the documents' marked examples were not found")
        let readme = try #require(documents.first { $0.path == "README.md" }, "README.md has no marked example")
        #expect(
            readme.examples.contains { $0.script.contains("portal-auth token") && $0.script.contains("login") },
            "README.md's first sign-in and token is not among its tested examples")
        let usingTheToken = try #require(documents.first { $0.path == "docs/using-the-token.md" })
        #expect(usingTheToken.examples.count >= 10)
        for document in documents {
            #expect(
                document.examples.first?.script.hasPrefix("eval \"$(portal-emulator env emulator.json)\"") == true,
                "\(document.path): its examples start without the line that trusts the emulator")
        }
    }

    @Test(arguments: try documentsWithExamples())
    func everyExampleWorksAsPrinted(_ document: Document) async throws {
        try await withPrivateKeyring { keyring in
            try await TokenUse.with { use in
                try Self.writeStateFile(use)
                var script = "set -euo pipefail; cd \"$0\"\n"
                for (index, example) in document.examples.enumerated() {
                    script +=
                        "printf '\\n%s\\n' '\(Self.separator(index))'; printf '\\n%s\\n' '\(Self.separator(index))' >&2\n"
                    script += example.script + "\n"
                }
                script += "printf '\\n%s\\n' '\(Self.separator(document.examples.count))'\n"
                let result = try await CLI.run(
                    "/bin/bash", ["-c", script, use.directory], environment: Self.environment(use, keyring),
                    removing: Self.sessionVariables, timeout: 300)
                for (index, example) in document.examples.enumerated() {
                    let output = Self.section(index, of: result.stdout)
                    guard let output else {
                        let errors = Self.section(index, of: result.stderr) ?? result.stderr
                        Issue.record(
                            "\(document.path), example \(index + 1) did not run to its end (status \(result.status)):\n\(example.script)\n\(errors)"
                        )
                        break
                    }
                    #expect(
                        example.expected.isEmpty || output.contains(example.expected),
                        "\(document.path), example \(index + 1):\n\(example.script)\nprinted: \(output)\n\(Self.section(index, of: result.stderr) ?? "")"
                    )
                }
                #expect(result.status == 0, "\(document.path): \(result.stderr)")
            }
        }
    }

    /// What was printed between the separator before block `index` and the next one; nil when
    /// the next one never came (the block, or one before it, stopped the script).
    static func section(_ index: Int, of text: String) -> String? {
        guard let start = text.range(of: "\n" + separator(index) + "\n"),
            let end = text.range(of: "\n" + separator(index + 1) + "\n", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// The recipes that hand the token to curl, wget or GDAL: in a user's shell (no `set -e`, no
    /// `pipefail`) with nothing signed in, `portal-auth token` fails and the client never runs.
    /// The naive pipe, run the same way, does start curl: what the recipes are written against.
    @Test func theRecipesDoNotRunTheClientWithoutAToken() async throws {
        let document = try #require(try Self.documents().first { $0.path == "docs/using-the-token.md" })
        let recipes = document.examples.map(\.script).filter { script in
            ["curl ", "wget ", "ogrinfo "].contains { script.contains($0) } && !script.contains("login")
                && !script.contains("portal-auth exec")
        }
        #expect(recipes.count >= 4)
        try await withPrivateKeyring { keyring in
            try await TokenUse.with { use in
                try Self.writeStateFile(use)
                let stubs = use.directory + "/stubs"
                try FileManager.default.createDirectory(atPath: stubs, withIntermediateDirectories: true)
                for client in ["curl", "wget", "ogrinfo"] {
                    let path = stubs + "/" + client
                    try "#!/bin/sh\ncat > /dev/null\ntouch \"$0.ran\"\n".write(
                        toFile: path, atomically: true, encoding: .utf8)
                    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
                }
                var environment = Self.environment(use, keyring)
                environment["PATH"] = stubs + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
                let naive =
                    "portal-auth token \"$PORTAL_URL\" --format header | curl -sS -H @- \"$PORTAL_URL/sharing/rest/community/self?f=json\""
                for recipe in recipes + [naive] {
                    for client in ["curl", "wget", "ogrinfo"] {
                        try? FileManager.default.removeItem(atPath: "\(stubs)/\(client).ran")
                    }
                    let result = try await CLI.run(
                        "/bin/bash",
                        ["-c", "cd \"$0\"\neval \"$(portal-emulator env emulator.json)\"\n" + recipe, use.directory],
                        environment: environment, removing: Self.sessionVariables)
                    let ran = ["curl", "wget", "ogrinfo"].filter {
                        FileManager.default.fileExists(atPath: "\(stubs)/\($0).ran")
                    }
                    if recipe == naive {
                        #expect(
                            ran == ["curl"] && result.status == 0, "the naive pipe: \(ran), status \(result.status)")
                    } else {
                        #expect(ran.isEmpty, "\(recipe)\nran \(ran) without a token")
                        #expect(result.stderr.contains("portal-auth"), "\(recipe)\n\(result.stderr)")
                    }
                }
            }
        }
    }
}
