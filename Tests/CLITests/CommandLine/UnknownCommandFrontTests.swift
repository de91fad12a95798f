import Foundation
import TestSupport
import Testing

@testable import portal_auth
@testable import portal_auth_front

/// The small `portal-auth` answers a misspelt command itself (issue #37: a usage error within
/// 3 ms), with exactly what `portal-auth-full` prints and the same exit code, and hands every
/// other command line over. The words cover a near command, a tie, a prefix, a word near nothing,
/// capitals, and words the small program must leave to the full one (options anywhere, control
/// characters, non-ASCII, a known command).
@Suite struct UnknownCommandFrontTests {
    /// Its list of commands is the full program's, in the same order (the "the commands are …" line).
    @Test func theCommandsAreTheFullPrograms() {
        let full = CommandWords(PortalAuthCommand.self).subcommands.map(\.name)
        #expect(UnknownCommand.commands == full)
    }

    @Test(arguments: [
        ["tokn"], ["lgoin"], ["Token"], ["LOGIN"], ["tru"], ["hel"], ["exe", "x"], ["zzzzzzzzz"], ["ab"],
        ["tokn", "https://host.example.com/portal", "extra"], ["api_key"], ["re"], ["s"], ["status2"],
        [String(repeating: "x", count: 64)], ["x.y-z_1"],
    ])
    func aMisspeltCommandIsAnsweredAsTheFullProgramAnswersIt(_ arguments: [String]) async throws {
        try await withTemporaryDirectory("pa-usage") { directory in
            let mark = directory + "/mark"
            let small = try await CLI.run(CLI.portalAuth, arguments, environment: ["PORTAL_AUTH_FAST_PATH_MARK": mark])
            let full = try await CLI.run(CLI.portalAuthFull, arguments)
            #expect(small.status == 2 && full.status == 2, "\(small.stderr)")
            #expect(small.stderr == full.stderr)
            #expect(small.stdout.isEmpty && full.stdout.isEmpty)
            let marked = (try? String(contentsOfFile: mark, encoding: .utf8)) ?? ""
            #expect(marked == "answered by portal-auth\n", "the small program handed \(arguments) over")
        }
    }

    @Test(arguments: [
        ["tokn", "--help"], ["tokn", "-h"], ["tokn", "--version"], ["tokn", "--store", "file"], ["-x"],
        ["tok\u{1B}[2Jn"],
        ["tökn"], [String(repeating: "x", count: 65)], ["help", "tokn"], [""], ["tokn", "-"], ["lgoin", "--"],
    ])
    func anyOtherCommandLineIsTheFullProgramsToAnswer(_ arguments: [String]) async throws {
        try await withTemporaryDirectory("pa-usage") { directory in
            let mark = directory + "/mark"
            let small = try await CLI.run(CLI.portalAuth, arguments, environment: ["PORTAL_AUTH_FAST_PATH_MARK": mark])
            let full = try await CLI.run(CLI.portalAuthFull, arguments)
            #expect(small.status == full.status)
            #expect(small.stdout == full.stdout)
            #expect(small.stderr == full.stderr)
            #expect(!FileManager.default.fileExists(atPath: mark), "the small program answered \(arguments)")
        }
    }
}
