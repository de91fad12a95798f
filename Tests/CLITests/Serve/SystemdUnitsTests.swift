import Foundation
import TestSupport
import Testing

/// The package's systemd user units (debian/systemd): `systemd-analyze verify --user` accepts them
/// with the built portal-auth in place of /usr/bin/portal-auth (scripts/checks/package-test.sh verifies
/// the installed ones, man pages included), and their command lines are ones portal-auth takes.
@Suite struct SystemdUnitsTests {
    static let units = [
        "portal-auth-serve.service", "portal-auth-serve.socket", "portal-auth-renew.service", "portal-auth-renew.timer",
    ]

    @Test func theUserUnitsPassSystemdAnalyzeVerify() async throws {
        let source = RealClients.repositoryRoot + "/debian/systemd"
        try await withTemporaryDirectory("units") { directory in
            for unit in Self.units {
                let text = try String(contentsOfFile: source + "/" + unit, encoding: .utf8)
                try text.replacing("/usr/bin/portal-auth", with: CLI.portalAuth).write(
                    toFile: directory + "/" + unit, atomically: true, encoding: .utf8)
            }
            let result = try await CLI.run(
                "/bin/bash",
                [
                    "-c",
                    #"""
                    cd "$0" && mkdir -m 700 runtime && XDG_RUNTIME_DIR="$PWD/runtime" \
                      systemd-analyze verify --user --man=no "$@" && echo verified
                    """#, directory,
                ] + Self.units)
            #expect(result.status == 0 && result.stdout == "verified\n", "\(result.stdout) \(result.stderr)")
            // The commands the units run are command lines portal-auth accepts.
            for arguments in [
                ["serve", "--state-file", "/run/user/1000/portal-auth-serve.json", "--help"], ["renew", "--help"],
            ] {
                let help = try await CLI.run(CLI.portalAuth, arguments)
                #expect(help.status == 0, "\(arguments): \(help.stderr)")
            }
        }
    }

    /// The system unit docs/serve.md prints for a machine without a user manager (issue #38,
    /// item 6), as printed: `systemd-analyze verify` accepts it without a word (an unknown key
    /// would be named), and its command line is one portal-auth takes.
    @Test func theSystemUnitInTheServeDocsPassesSystemdAnalyzeVerify() async throws {
        let docs = RealClients.repositoryRoot + "/docs/serve.md"
        let text = try String(contentsOfFile: docs, encoding: .utf8)
        let start = try #require(text.range(of: "```ini\n# /etc/systemd/system/portal-auth-serve@.service"))
        let end = try #require(text.range(of: "\n```\n", range: start.upperBound..<text.endIndex))
        let unit = String(text[text.index(start.lowerBound, offsetBy: "```ini\n".count)..<end.lowerBound]) + "\n"
        #expect(unit.contains("ExecStart=/usr/bin/portal-auth serve --state-file /run/portal-auth-serve-%i/serve.json"))
        try await withTemporaryDirectory("system-unit") { directory in
            try unit.replacing("/usr/bin/portal-auth", with: CLI.portalAuth).write(
                toFile: directory + "/portal-auth-serve@.service", atomically: true, encoding: .utf8)
            let result = try await CLI.run(
                "/bin/bash",
                [
                    "-c", #"cd "$0" && systemd-analyze verify --man=no ./portal-auth-serve@.service && echo verified"#,
                    directory,
                ])
            #expect(result.status == 0 && result.stdout == "verified\n", "\(result.stdout) \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
        let help = try await CLI.run(
            CLI.portalAuth, ["serve", "--state-file", "/run/portal-auth-serve-alice/serve.json", "--help"],
            environment: ["PORTAL_AUTH_STORE": "file"])
        #expect(help.status == 0, "\(help.stderr)")
    }
}
