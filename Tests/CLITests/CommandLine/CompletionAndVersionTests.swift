import Foundation
import TestSupport
import Testing

/// `portal-auth completion SHELL` and `--version`, as the packages use them (scripts/package.sh).
@Suite struct CompletionAndVersionTests {
    @Test(arguments: ["bash", "zsh", "fish"]) func completionPrintsWhatTheHiddenFlagPrints(_ shell: String) async throws
    {
        let command = try await CLI.portalAuth(["completion", shell], emulator: nil)
        let flag = try await CLI.portalAuth(["--generate-completion-script", shell], emulator: nil)
        #expect(command.status == 0, "\(command.stderr)")
        #expect(flag.status == 0, "\(flag.stderr)")
        #expect(command.stdout.trimmingCharacters(in: .newlines) == flag.stdout.trimmingCharacters(in: .newlines))
        #expect(command.stdout.contains("portal-auth"))
        #expect(command.stdout.contains("token"))
    }

    @Test func completionRefusesAnotherShell() async throws {
        let result = try await CLI.portalAuth(["completion", "tcsh"], emulator: nil)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
    }

    /// A build from a git checkout names its commit (the BuildCommit plugin writes it in at build
    /// time); only where git cannot read the checkout (no git, a copy of the sources) does it say
    /// "development build".
    @Test func versionNamesTheCommitOfTheCheckout() async throws {
        let result = try await CLI.portalAuth(["--version"], emulator: nil)
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(line.split(separator: " ").first?.split(separator: ".").count == 3, "\(line)")
        let root = RealClients.repositoryRoot
        let git = try await CLI.run("/usr/bin/git", ["-C", root, "rev-parse", "--short=7", "HEAD"])
        let commit = git.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if git.status == 0, !commit.isEmpty {
            #expect(line.contains(" (\(commit)"), "\(line) does not name \(commit)")
        } else {
            #expect(line.hasSuffix(" (development build)"), "\(line)")
        }
    }
}
