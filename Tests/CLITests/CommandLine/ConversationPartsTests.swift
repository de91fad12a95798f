import CommandSpelling
import Foundation
import Testing

@testable import portal_auth

/// The pure parts of the CLI's conversation (#29), without a process: the nearest word, the
/// command line `exec` runs, durations, portal URLs, terminal text.
@Suite struct ConversationPartsTests {
    @Test func theEditDistanceCountsASwapAsOne() {
        #expect(Spelling.editDistance("tokne", "token") == 1)
        #expect(Spelling.editDistance("logn", "login") == 1)
        #expect(Spelling.editDistance("whomai", "whoami") == 1)
        #expect(Spelling.editDistance("", "abc") == 3)
        #expect(Spelling.editDistance("status", "status") == 0)
    }

    @Test func theNearestWordIsNearEnoughOrNone() {
        let commands = ["login", "token", "exec", "request", "whoami", "status", "switch", "logout"]
        #expect(Spelling.nearest("logn", among: commands, maxDistance: 2) == "login")
        #expect(Spelling.nearest("stat", among: commands, maxDistance: 2) == "status")
        #expect(Spelling.nearest("frobnicate", among: commands, maxDistance: 2) == nil)
        let options = ["--portal", "--username", "--password-stdin", "--url"]
        #expect(Spelling.nearest("--usernme", among: options, maxDistance: nil) == "--username")
        #expect(Spelling.nearest("--zzz", among: options, maxDistance: nil) == nil)
    }

    @Test func everyCommandsOptionsAreKnownSoNoValidLineIsCalledAMistake() {
        #expect(UsageMistakes.explain(["login", "--portal", "https://h/portal", "--username", "a"]) == nil)
        #expect(UsageMistakes.explain(["-v", "--store", "memory", "status", "--check", "--within", "7d"]) == nil)
        #expect(UsageMistakes.explain(["request", "https://h/x", "-f", "where=1=1", "-vv"]) == nil)
        #expect(UsageMistakes.explain(["exec", "https://h/x", "--", "ls", "--bogus"]) == nil)
        #expect(UsageMistakes.explain(["help", "login"]) == nil)
        #expect(
            UsageMistakes.explain(["login", "--portal=https://h", "--pasword-stdin"])?.contains("'--password-stdin'")
                == true)
    }

    @Test func execWithoutDoubleDashGetsItBeforeTheCommand() {
        let url = "https://h/portal"
        #expect(
            ExecCommandLine.separated(["exec", url, "ogrinfo", "--version"]) == [
                "exec", url, "--", "ogrinfo", "--version",
            ])
        #expect(ExecCommandLine.separated(["exec", "python3", "x.py"]) == ["exec", "--", "python3", "x.py"])
        #expect(
            ExecCommandLine.separated(["exec", "--account", "bob", "--renew-before", "60", url, "sh"])
                == ["exec", "--account", "bob", "--renew-before", "60", url, "--", "sh"])
        #expect(ExecCommandLine.separated(["exec", url, "--", "ls"]) == ["exec", url, "--", "ls"])
        #expect(ExecCommandLine.separated(["token", url, "x"]) == ["token", url, "x"])
        #expect(ExecCommandLine.separated(["exec", url]) == ["exec", url])
    }

    @Test func durationsTakeUnitsAndPlainNumbersTheirOptionsUnit() throws {
        #expect(try parseSeconds("90s", option: "--x") == 90)
        #expect(try parseSeconds("30m", option: "--x") == 1800)
        #expect(try parseSeconds("12h", option: "--x") == 43200)
        #expect(try parseSeconds("30d", option: "--x") == 2_592_000)
        #expect(try parseSeconds("2592000", option: "--x") == 2_592_000)
        #expect(try parseMinutes("12h", option: "--x") == 720)
        #expect(try parseMinutes("90", option: "--x") == 90)
        #expect(try parseDuration("2.5", option: "--x", plainUnit: 1, fractions: true) == 2.5)
        for wrong in ["", "0", "-5", "3x", "1.5h", "h", "99999999999999999d"] {
            #expect(throws: (any Error).self, "\(wrong)") { try parseSeconds(wrong, option: "--x") }
        }
        #expect(throws: (any Error).self) { try parseMinutes("90s", option: "--x") }
    }

    @Test func aPortalURLIsReadOneWay() throws {
        func read(_ text: String) throws -> String { try PortalURLInput.read(text).absoluteString }
        #expect(try read("https://GIS.Example.com/portal/") == "https://gis.example.com/portal")
        #expect(try read("https://gis.example.com/portal/home/index.html") == "https://gis.example.com/portal")
        #expect(
            try read("https://gis.example.com/portal/apps/mapviewer/index.html?webmap=1")
                == "https://gis.example.com/portal")
        #expect(try read("https://gis.example.com/portal/sharing/rest/") == "https://gis.example.com/portal")
        #expect(
            try read("https://gis.example.com/arcgis/rest/services") == "https://gis.example.com/arcgis/rest/services")
        #expect(throws: (any Error).self) { try read("gis.example.com/portal") }
    }

    @Test func terminalTextHasNoControlCharacters() {
        #expect(terminalText("Eve \u{1B}]0;x\u{07}") == "Eve  ]0;x ")
        #expect(terminalText("a\u{9B}b\u{7F}") == "a b ")
        #expect(terminalText("line\nnext\r", keepingLines: true) == "line\nnext ")
        #expect(terminalText("A: 1\r\nB: 2", keepingLines: true) == "A: 1\r\nB: 2")
        #expect(terminalText("over\rwrite\r\n", keepingLines: true) == "over write\r\n")
        #expect(terminalText("plain é ü") == "plain é ü")
    }
}
