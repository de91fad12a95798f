import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The README's "Using the token" examples, run as written, in order, against portal-emulator,
/// with the real keyring (a private one) and the real clients: each block marked
/// `<!-- test: expect "TEXT" -->` must succeed and print TEXT.
@Suite struct ReadmeExamplesTests {
    /// A README code block to run, and what it must print.
    struct Example {
        var script: String
        var expected: String
    }

    /// The marked blocks of the README, in order.
    static func examples() throws -> [Example] {
        var readme = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { readme.deleteLastPathComponent() }
        let text = try String(contentsOf: readme.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- test: expect \""
        var examples: [Example] = []
        for chunk in text.components(separatedBy: marker).dropFirst() {
            guard let close = chunk.range(of: "\" -->\n```sh\n"), let end = chunk.range(of: "\n```\n") else {
                Issue.record("a test marker without a ```sh block after it: \(chunk.prefix(80))")
                continue
            }
            let expected = String(chunk[..<close.lowerBound]).replacing("\\\"", with: "\"")
            examples.append(Example(script: String(chunk[close.upperBound..<end.lowerBound]), expected: expected))
        }
        return examples
    }

    @Test func everyUsingTheTokenExampleWorksAsWritten() async throws {
        let examples = try Self.examples()
        #expect(examples.count >= 10, "the README's marked examples were not found")
        try await withPrivateKeyring { keyring in
            try await TokenUse.with { use in
                var environment = use.environment.merging(keyring.environment) { $1 }
                environment["PORTAL_AUTH_STORE"] = "keyring"
                environment["PASS"] = alicePassword
                for example in examples {
                    let result = try await CLI.run(
                        "/bin/bash", ["-c", "set -euo pipefail; cd \"$0\"\n" + example.script, use.directory],
                        environment: environment)
                    #expect(result.status == 0, "\(example.script)\n\(result.stderr)")
                    #expect(
                        result.stdout.contains(example.expected),
                        "\(example.script)\nprinted: \(result.stdout)\n\(result.stderr)")
                }
            }
        }
    }
}
