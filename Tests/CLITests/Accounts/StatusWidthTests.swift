import Foundation
import PortalEmulator
import TestSupport
import Testing

@testable import portal_auth

/// `status` keeps every human-readable line within the terminal's width (`COLUMNS`, the terminal,
/// else 120), wrapping prose and shortening long table fields; `--json` keeps them whole
/// (issue #38, item 10). The API key row, the longest, is in APIKeyCLITests.
@Suite struct StatusWidthTests {
    @Test func proseWrapsAtSpacesWithinTheWidth() async throws {
        let (_, folder, env) = StatusCheckTests.fileStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var narrow = env
        narrow["COLUMNS"] = "50"
        let result = try await CLI.portalAuth(["status"], emulator: nil, environment: narrow)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                No stored credentials (file store). Sign in with:
                  portal-auth login --portal URL --username USER

                """, "\(result.stdout)")
        let wide = try await CLI.portalAuth(["status"], emulator: nil, environment: env)
        #expect(wide.stdout.split(separator: "\n").count == 1, "\(wide.stdout)")
    }

    @Test func aTokenRowKeepsWithinNarrowColumns() async throws {
        try await withEmulator { emulator in
            let (_, folder, env) = StatusCheckTests.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            _ = try await StatusCheckTests.storeToken(emulator, seconds: 3600, env)
            var narrow = env
            narrow["COLUMNS"] = "80"
            let result = try await CLI.portalAuth(["status"], emulator: emulator, environment: narrow)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 2 && lines.allSatisfy { $0.count <= 80 }, "\(result.stdout)")
            #expect(lines.last?.contains("…") == true, "\(result.stdout)")
            let json = try await CLI.portalAuth(["status", "--json"], emulator: emulator, environment: narrow)
            #expect(json.stdout.contains(emulator.standaloneServerURL), "\(json.stdout)")
        }
    }

    @Test(arguments: [
        ("https://host.example.com/portal", 12, "https:…ortal"),
        ("short", 12, "short"),
        ("abcdef", 5, "ab…ef"),
    ])
    func shortenKeepsBothEnds(_ text: String, _ width: Int, _ expected: String) {
        #expect(TerminalWidth.shorten(text, to: width) == expected)
        #expect(TerminalWidth.shorten(text, to: width).count <= width)
    }

    @Test func aWordLongerThanALineIsBrokenWhereTheLineEnds() {
        #expect(
            TerminalWidth.wrap("see https://example.com/a/very/long/path now", width: 12) == [
                "see", "  https://ex", "  ample.com/", "  a/very/lon", "  g/path now",
            ])
        #expect(TerminalWidth.wrap("", width: 10) == [""])
    }
}
