import Foundation
import Testing

/// `--help` is read in an 80-column terminal: ArgumentParser wraps prose itself, so a discussion's
/// source lines are joined (`\` at the end of a line in the literal) and only examples keep their
/// own lines.
@Suite struct HelpTextTests {
    static let commands = [
        [], ["login"], ["token"], ["exec"], ["request"], ["whoami"], ["status"], ["logout"], ["trust"],
        ["untrust"], ["doctor"], ["completion"],
    ]

    /// What is wrong with `help` (empty when nothing): a line that ends in a backslash not followed
    /// by an indented continuation (an example's), or prose broken where it would still have fitted.
    static func defects(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            let nextIndented = next.hasPrefix(" ")
            if line.hasSuffix("\\") && !nextIndented { found.append("a literal backslash: \(line)") }
            guard !line.hasPrefix(" "), !line.isEmpty, !nextIndented, let first = next.split(separator: " ").first,
                first.first?.isLowercase == true
            else { continue }
            // ArgumentParser keeps every line under 80 columns.
            if line.count + 1 + first.count < 80 { found.append("broken early: \(line) / \(next)") }
        }
        return found
    }

    @Test(arguments: commands) func proseIsWrappedByArgumentParserOnly(_ command: [String]) async throws {
        let result = try await CLI.portalAuth(command + ["--help"], emulator: nil, environment: ["COLUMNS": "80"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE:"))
        #expect(Self.defects(result.stdout) == [], "portal-auth \(command.joined(separator: " ")) --help")
    }

    /// The example commands of a help text: indented lines that run portal-auth (alone, or
    /// after a pipe or an assignment), and the continuation lines of those ending in a backslash.
    static func exampleLines(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [String] = []
        var continuing = false
        for line in lines {
            let isExample =
                line.hasPrefix("  ")
                && (line.drop { $0 == " " }.hasPrefix("portal-auth ") || line.contains("| portal-auth ")
                    || line.contains("$(portal-auth "))
            if isExample || continuing { examples.append(line) }
            continuing = (isExample || continuing) && line.hasSuffix("\\")
        }
        return examples
    }

    /// Every subcommand shows at least one example that starts with `portal-auth `, and no
    /// example is wrapped at 80 columns: each example line of the help at 400 columns is a line
    /// of the help at 80, and none is longer than 78.
    @Test(arguments: commands.filter { !$0.isEmpty }) func examplesAreShownWhole(_ command: [String]) async throws {
        let narrow = try await CLI.portalAuth(command + ["--help"], emulator: nil, environment: ["COLUMNS": "80"])
        let wide = try await CLI.portalAuth(command + ["--help"], emulator: nil, environment: ["COLUMNS": "400"])
        let examples = Self.exampleLines(wide.stdout)
        #expect(
            examples.contains { $0.drop { $0 == " " }.hasPrefix("portal-auth \(command[0])") },
            "portal-auth \(command[0]) --help has no example")
        let narrowLines = Set(narrow.stdout.split(separator: "\n").map(String.init))
        for line in examples {
            #expect(narrowLines.contains(line), "wrapped at 80 columns: \(line)")
            #expect(line.count <= 78, "longer than 78 columns: \(line)")
        }
    }

    @Test func theCheckFindsBothDefects() {
        #expect(Self.defects("A sentence that ends \\\nHere.\n").count == 1)
        #expect(Self.defects("  curl \\\n    -H x\n").isEmpty)
        #expect(Self.defects("The key is pinned for that\nhost and port only.\n").count == 1)
        #expect(Self.defects("Exit codes: 0 ok, 1 error.\nEnvironment: X.\n").isEmpty)
    }
}
