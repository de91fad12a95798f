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
            let base = ["ARCGIS_HOST": "https://portal.invalid", "ARCGIS_USER": "u"]
            let cases: [([String: String], [String])] = [
                (["ARCGIS_PASSWORD_FILE": dir + "/loose"], [dir + "/loose", "chmod 600"]),
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
}
