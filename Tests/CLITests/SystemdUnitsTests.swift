import Foundation
import TestSupport
import Testing

/// The package's systemd user units (debian/systemd): `systemd-analyze verify --user` accepts them
/// with the built portal-auth in place of /usr/bin/portal-auth (scripts/package-test.sh verifies
/// the installed ones, man pages included), and their command lines are ones portal-auth takes.
@Suite struct SystemdUnitsTests {
    static let units = [
        "portal-auth-serve.service", "portal-auth-serve.socket", "portal-auth-renew.service", "portal-auth-renew.timer",
    ]

    @Test func theUserUnitsPassSystemdAnalyzeVerify() async throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("debian/systemd").path
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
}
