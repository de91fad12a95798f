import Foundation
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

    /// The debug build names no commit: only scripts/package.sh writes one in (its release build).
    @Test func versionSaysDevelopmentBuild() async throws {
        let result = try await CLI.portalAuth(["--version"], emulator: nil)
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(line.hasSuffix(" (development build)"), "\(line)")
        #expect(line.split(separator: " ").first?.split(separator: ".").count == 3, "\(line)")
    }
}
