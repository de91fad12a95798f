import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Fleets (#39): secrets from the files Kubernetes, systemd and Vault hand over, and the headless
/// store of a process with no session bus.
@Suite struct FleetsCLITests {
    /// Writes `contents` to `path` with `mode`.
    static func write(_ contents: String, to path: String, mode: Int = 0o600) throws {
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func aProcessWithoutASessionBusUsesTheHeadlessStoreAndSaysSoOnce() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory { state in
                let env = ["XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": "/nonexistent"]
                let removing = ["DBUS_SESSION_BUS_ADDRESS", "PORTAL_AUTH_STORE"]
                let login = try await CLI.portalAuth(
                    ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"],
                    emulator: emulator, stdin: alicePassword, environment: env, removing: removing)
                #expect(login.status == 0, "\(login.stderr)")
                let file = state + "/portal-auth/credentials.json"
                #expect(login.stderr.contains("using the file store \(file) (no D-Bus session bus"), "\(login.stderr)")
                let attributes = try FileManager.default.attributesOfItem(atPath: file)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                let folder = try FileManager.default.attributesOfItem(atPath: state + "/portal-auth")
                #expect((folder[.posixPermissions] as? Int) == 0o700)
                let token = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env, removing: removing)
                #expect(token.status == 0 && !token.stdout.isEmpty, "\(token.stderr)")
                #expect(!token.stderr.contains("using the file store"))
                let doctor = try await CLI.portalAuth(["doctor"], emulator: nil, environment: env, removing: removing)
                #expect(doctor.stdout.contains("store in use: file (the default where there is no D-Bus session bus)"))
                #expect(doctor.stdout.contains(file))
            }
        }
    }

    @Test func aPasswordFromAFileSignsInAndIsNeverHandedOn() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory { dir in
                try Self.write(alicePassword + "\n", to: dir + "/password")
                let env = [
                    "ARCGIS_HOST": emulator.portalURL, "ARCGIS_USER": "alice",
                    "ARCGIS_PASSWORD_FILE": dir + "/password",
                ]
                let token = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
                #expect(token.status == 0 && !token.stdout.isEmpty, "\(token.stderr)")
                let exec = try await CLI.portalAuth(
                    ["exec", emulator.portalURL, "--", "/bin/sh", "-c", "env"], emulator: emulator, environment: env)
                #expect(exec.status == 0, "\(exec.stderr)")
                #expect(exec.stdout.contains("PORTAL_AUTH_TOKEN=") && !exec.stdout.contains("ARCGIS_PASSWORD"))
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("ARCGIS_USER, ARCGIS_PASSWORD_FILE"), "\(status.stdout)")
            }
        }
    }

    @Test func aSystemdCredentialSignsInAndAMisspeltOneIsRefusedNamingTheRightName() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory { dir in
                try Self.write(alicePassword, to: dir + "/ARCGIS_PASSWORD", mode: 0o400)
                let env = ["ARCGIS_HOST": emulator.portalURL, "ARCGIS_USER": "alice", "CREDENTIALS_DIRECTORY": dir]
                let token = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
                #expect(token.status == 0 && !token.stdout.isEmpty, "\(token.stderr)")
                try Self.write(alicePassword, to: dir + "/arcgis-password", mode: 0o400)
                let refused = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
                #expect(refused.status != 0 && refused.oneLineError, "\(refused.stderr)")
                #expect(refused.stderr.contains(dir + "/arcgis-password") && refused.stderr.contains("ARCGIS_PASSWORD"))
                #expect(refused.stderr.contains("LoadCredential=ARCGIS_PASSWORD:"))
            }
        }
    }

    @Test func aBrokenFileRuleOrAVariableWithItsFileIsOneLineNamingTheFix() async throws {
        try await withTemporaryDirectory { dir in
            try Self.write("pw-xyz", to: dir + "/loose", mode: 0o644)
            try Self.write("pw-xyz", to: dir + "/ok")
            // A Kubernetes Secret volume mounted with fsGroup: the key's file group-readable (0440), refused
            // (docs/fleets.md: the sidecar reads a 0400 file as its owner instead).
            let fm = FileManager.default
            try fm.createDirectory(atPath: dir + "/k8s/..2026_11_28_10_00_00.1", withIntermediateDirectories: true)
            try Self.write("pw-xyz\n", to: dir + "/k8s/..2026_11_28_10_00_00.1/password", mode: 0o440)
            try fm.createSymbolicLink(atPath: dir + "/k8s/..data", withDestinationPath: "..2026_11_28_10_00_00.1")
            try fm.createSymbolicLink(atPath: dir + "/k8s/password", withDestinationPath: "..data/password")
            let base = ["ARCGIS_HOST": "https://portal.invalid", "ARCGIS_USER": "u"]
            let cases: [([String: String], [String])] = [
                (["ARCGIS_PASSWORD_FILE": dir + "/loose"], [dir + "/loose", "chmod 600"]),
                (["ARCGIS_PASSWORD_FILE": dir + "/k8s/password"], [dir + "/k8s/password", "mode 0440", "chmod 600"]),
                (["ARCGIS_PASSWORD_FILE": dir + "/missing"], [dir + "/missing", "does not exist"]),
                (["ARCGIS_PASSWORD_FILE": dir], [dir, "a folder"]),
                (
                    ["ARCGIS_PASSWORD_FILE": dir + "/ok", "ARCGIS_PASSWORD": "pw-xyz"],
                    ["ARCGIS_PASSWORD_FILE", "keep one"]
                ),
            ]
            for (variables, named) in cases {
                let r = try await CLI.portalAuth(["whoami"], emulator: nil, environment: base.merging(variables) { $1 })
                #expect(r.status != 0 && r.oneLineError, "\(variables): \(r.stderr)")
                for text in named { #expect(r.stderr.contains(text), "\(text): \(r.stderr)") }
                #expect(!r.stderr.contains("pw-xyz"))
            }
        }
    }

    /// Runs `body` with the address of a private D-Bus session bus (its own `dbus-daemon`, stopped
    /// after) on which nobody provides a Secret Service: no service file for `org.freedesktop.secrets`
    /// (`activatable` false), or one whose program fails at once (`activatable` true).
    static func withBusWithoutSecretService(
        activatable: Bool, _ body: (String) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory("bus") { dir in
            try FileManager.default.createDirectory(atPath: dir + "/services", withIntermediateDirectories: true)
            if activatable {
                try write(
                    "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/bin/false\n",
                    to: dir + "/services/org.freedesktop.secrets.service", mode: 0o644)
            }
            let config = """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>unix:path=\(dir)/bus</listen>
                  <servicedir>\(dir)/services</servicedir>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
                  </policy>
                </busconfig>
                """
            try write(config, to: dir + "/bus.conf")
            // (--fork returns once the bus listens; its pid is how it is stopped, and only it.)
            let started = try await CLI.run(
                "/usr/bin/dbus-daemon", ["--config-file=\(dir)/bus.conf", "--fork", "--print-pid=1"])
            let pid = try #require(Int32(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            defer { kill(pid, SIGTERM) }
            try await body("unix:path=\(dir)/bus")
        }
    }

    @Test(arguments: [false, true])
    func aBusWithoutASecretServiceUsesTheHeadlessStoreUnlessTheKeyringWasChosen(activatable: Bool) async throws {
        try await withEmulator { emulator in
            try await Self.withBusWithoutSecretService(activatable: activatable) { bus in
                try await withTemporaryDirectory { state in
                    let env = [
                        "XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": "/nonexistent", "DBUS_SESSION_BUS_ADDRESS": bus,
                    ]
                    let removing = ["PORTAL_AUTH_STORE"]
                    let login = try await CLI.portalAuth(
                        ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"],
                        emulator: emulator, stdin: alicePassword, environment: env, removing: removing)
                    #expect(login.status == 0, "\(login.stderr)")
                    let file = state + "/portal-auth/credentials.json"
                    #expect(
                        login.stderr.contains(
                            "using the file store \(file) (no Secret Service on the D-Bus session bus"),
                        "\(login.stderr)")
                    #expect(FileManager.default.fileExists(atPath: file))
                    // The small program hands over (nothing of this bus's keyring to answer from).
                    let token = try await CLI.portalAuth(
                        ["token", emulator.portalURL], emulator: emulator, environment: env, removing: removing)
                    #expect(token.status == 0 && !token.stdout.isEmpty, "\(token.stderr)")
                    #expect(!token.stderr.contains("using the file store"), "\(token.stderr)")
                    let doctor = try await CLI.portalAuth(
                        ["doctor"], emulator: nil, environment: env, removing: removing)
                    #expect(
                        doctor.stdout.contains(
                            "store in use: file (the default where there is no Secret Service on the D-Bus session bus)"
                        ),
                        "\(doctor.stdout)")
                    // Chosen, the keyring is never replaced: an error naming the remedy.
                    for chosen in [["--store", "keyring"], []] {
                        let extra = chosen.isEmpty ? ["PORTAL_AUTH_STORE": "keyring"] : [:]
                        let refused = try await CLI.portalAuth(
                            ["token", emulator.portalURL] + chosen, emulator: emulator,
                            environment: env.merging(extra) { $1 }, removing: chosen.isEmpty ? [] : removing)
                        #expect(refused.status != 0 && refused.oneLineError, "\(refused.stderr)")
                        #expect(refused.stderr.contains("no Secret Service"), "\(refused.stderr)")
                        #expect(refused.stderr.contains("gnome-keyring-daemon"), "\(refused.stderr)")
                        #expect(refused.stdout.isEmpty, "\(refused.stdout)")
                    }
                }
            }
        }
    }
}
