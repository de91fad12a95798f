import Foundation
import PortalEmulator
import TestSupport
import Testing

@testable import portal_auth

/// `status --check`: credentials that cannot renew themselves, expiring within a window, exit 6.
/// The check compares stored expiries with this machine's clock, so the tests give credentials
/// short lifetimes (`--expires-in`, `--expiration`) or move a stored expiry to 1970; nothing sleeps.
/// Each test keeps its credentials in a file store of its own: the keyring is shared by the suite.
@Suite struct StatusCheckTests {
    /// A file store in a fresh folder (portal-auth makes it, private), the folder, and the environment
    /// that selects the store.
    static func fileStore() -> (path: String, folder: String, environment: [String: String]) {
        let folder = temporaryPath("pa-check")
        let path = folder + "/credentials.json"
        return (path, folder, ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": path])
    }

    /// The stored expiries of a file store moved to 1970 (as `expireStoredToken` does in the keyring).
    static func expireEverything(in path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expired = text.replacingOccurrences(
            of: #"\\"expirationDate\\":[0-9.e+]+"#, with: #"\\"expirationDate\\":1000"#, options: .regularExpression)
        #expect(expired != text)
        try expired.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// Stores a pregenerated token for the standalone server that lives `seconds`; returns it.
    static func storeToken(_ emulator: PortalEmulator, seconds: Int, _ env: [String: String]) async throws -> String {
        let token = emulator.issueToken(username: "alice", lifetimeSeconds: seconds)
        let stored = try await CLI.portalAuth(
            ["login", "--url", emulator.standaloneServerURL, "--token-stdin", "--expires-in", "\(seconds)"],
            emulator: emulator, stdin: token, environment: env)
        #expect(stored.status == 0, "\(stored.stderr)")
        return token
    }

    @Test func aPregeneratedTokenWithinTheWindowExits6AndARenewableTokenDoesNot() async throws {
        try await withEmulator { emulator in
            let (_, folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let token = try await Self.storeToken(emulator, seconds: 3600, env)
            // A password sign-in whose password is remembered renews unattended: never an alert.
            let signIn = try await CLI.portalAuth(
                [
                    "login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin",
                    "--remember-password",
                ],
                emulator: emulator, stdin: alicePassword, environment: env)
            #expect(signIn.status == 0, "\(signIn.stderr)")

            let check = try await CLI.portalAuth(["status", "--check"], emulator: emulator, environment: env)
            #expect(check.status == 6, "\(check.stderr)")
            let lines = check.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(check.stderr)")
            #expect(
                lines.first?.hasPrefix("portal-auth: pregenerated-token for \(emulator.standaloneServerURL) expires 20")
                    == true)
            #expect(check.stdout.contains("KIND"))
            #expect(!check.stdout.contains(token) && !check.stderr.contains(token))

            let narrow = try await CLI.portalAuth(
                ["status", "--check", "--within", "30m"], emulator: emulator, environment: env)
            #expect(narrow.status == 0, "\(narrow.stderr)")
            #expect(narrow.stderr.isEmpty)
        }
    }

    @Test func theJSONReportNamesEachLapseAndAnExpiredOneCounts() async throws {
        try await withEmulator { emulator in
            let (path, folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            _ = try await Self.storeToken(emulator, seconds: 600, env)
            try Self.expireEverything(in: path)

            let check = try await CLI.portalAuth(
                ["status", "--check", "--within", "1m", "--json"], emulator: emulator, environment: env)
            #expect(check.status == 6, "\(check.stderr)")
            #expect(check.stderr.contains("pregenerated-token for \(emulator.standaloneServerURL) expired 1970-"))
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
            #expect(report["within"] as? String == "1m")
            #expect(report["withinSeconds"] as? Int == 60)
            #expect(report["checked"] is String)
            let expiring = try #require(report["expiring"] as? [[String: Any]])
            #expect(expiring.count == 1)
            let lapse = try #require(expiring.first)
            #expect(Set(lapse.keys) == ["kind", "server", "username", "expires", "expired", "store", "backend"])
            #expect(lapse["kind"] as? String == "pregenerated-token")
            #expect(lapse["server"] as? String == emulator.standaloneServerURL)
            #expect(lapse["expired"] as? Bool == true)
            #expect((lapse["expires"] as? String)?.hasPrefix("1970-") == true)
            #expect(lapse["backend"] as? String == "file")
        }
    }

    /// A password sign-in without a remembered password cannot renew itself unattended: its token
    /// expiring within the window is an alert (before, `--check` exited 0 and the cron job learned
    /// of it when the token was refused).
    @Test func aPasswordSignInWithoutARememberedPasswordExits6() async throws {
        try await withEmulator { emulator in
            let (_, folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let signIn = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"],
                emulator: emulator, stdin: alicePassword, environment: env)
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let check = try await CLI.portalAuth(["status", "--check"], emulator: emulator, environment: env)
            #expect(check.status == 6, "\(check.stderr)")
            #expect(check.stderr.contains("token for \(emulator.portalURL) as alice expires 20"), "\(check.stderr)")
            #expect(check.stderr.split(separator: "\n").count == 1, "\(check.stderr)")
        }
    }

    @Test func anOAuthSignInIsCheckedByItsRefreshTokenNotItsAccessToken() async throws {
        try await withEmulator { emulator in
            let (_, folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // The refresh token lives 3 hours; the access token 30 minutes (it renews itself).
            let signIn = try await oauthLogin(emulator, ["--expiration", "180"], environment: env)
            #expect(signIn.status == 0, "\(signIn.stderr)")

            let hour = try await CLI.portalAuth(
                ["status", "--check", "--within", "1h"], emulator: emulator, environment: env)
            #expect(hour.status == 0, "\(hour.stderr)")
            let day = try await CLI.portalAuth(
                ["status", "--check", "--within", "1d", "--json"], emulator: emulator, environment: env)
            #expect(day.status == 6, "\(day.stderr)")
            #expect(day.stderr.contains("oauth-user for \(emulator.portalURL) as alice expires 20"))
        }
    }

    @Test func anInactiveAccountsRefreshTokenIsCheckedToo() async throws {
        try await withEmulator { emulator in
            let (_, folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            #expect(try await oauthLogin(emulator, ["--expiration", "180"], environment: env).status == 0)
            let bob = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--username", "bob", "--password-stdin"],
                emulator: emulator, stdin: "bob-pass-456", environment: env)
            #expect(bob.stdout.contains("alice stays active"), "\(bob.stdout) \(bob.stderr)")
            #expect(try await CLI.portalAuth(["switch", "bob"], emulator: emulator, environment: env).status == 0)
            let day = try await CLI.portalAuth(
                ["status", "--check", "--within", "1d"], emulator: emulator, environment: env)
            #expect(day.status == 6, "\(day.stderr)")
            #expect(day.stderr.contains("oauth-user for \(emulator.portalURL) as alice expires 20"), "\(day.stderr)")
        }
    }

    @Test func withoutCheckNothingChangesAndWithinNeedsCheck() async throws {
        let (_, folder, env) = Self.fileStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let empty = try await CLI.portalAuth(["status", "--check"], emulator: nil, environment: env)
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout == "Nothing to check: no stored credentials (file store).\n", "\(empty.stdout)")
        #expect(empty.stderr.isEmpty, "\(empty.stderr)")
        let alone = try await CLI.portalAuth(["status", "--within", "7d"], emulator: nil, environment: env)
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("--within goes with --check"))
        let bad = try await CLI.portalAuth(["status", "--check", "--within", "7"], emulator: nil, environment: env)
        #expect(bad.status == 2)
    }

    /// Every duration option refuses a value that is not one alike: one line naming the option, the
    /// value and the forms a duration takes (issue #38, item 7).
    @Test(arguments: [
        ["status", "--check", "--within", "7days"], ["renew", "--within", "7days"],
        ["login", "--url", "https://127.0.0.1:9/server", "--token-stdin", "--expires-in", "7days"],
        ["login", "--portal", "https://127.0.0.1:9/portal", "--username", "a", "--expiration", "7days"],
        ["exec", "--renew-before", "7days", "--", "true"],
    ])
    func everyDurationOptionNamesTheFormsItTakes(_ line: [String]) async throws {
        let option = line[line.firstIndex(of: "7days")! - 1]
        let result = try await CLI.portalAuth(
            line, emulator: nil, stdin: "", environment: ["PORTAL_AUTH_STORE": "memory"])
        #expect(result.status == 2, "\(result.stderr)")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("portal-auth: \(option) 7days is not a duration: give "), "\(result.stderr)")
        #expect(first.hasSuffix("a whole number with a unit (90s, 30m, 12h, 30d, 2w)"), "\(result.stderr)")
        #expect(!result.stderr.contains("is invalid for"), "\(result.stderr)")
    }

    @Test func withinNamesTheFormsExactly() async throws {
        let result = try await CLI.portalAuth(
            ["status", "--check", "--within", "7days"], emulator: nil, environment: ["PORTAL_AUTH_STORE": "memory"])
        #expect(
            result.stderr.split(separator: "\n").first
                == "portal-auth: --within 7days is not a duration: give a whole number with a unit (90s, 30m, 12h, 30d, 2w)"
        )
    }

    @Test(arguments: [("90s", 90), ("30m", 1800), ("12h", 43200), ("7d", 604_800), ("2w", 1_209_600)])
    func durationsAreANumberAndAUnit(_ text: String, _ seconds: Int) {
        #expect(DurationArgument(argument: text)?.seconds == seconds)
    }

    @Test(arguments: ["", "d", "7", "0d", "-1d", "+1d", "1.5h", "7D", "7 d", "1y", "99999999999999999w"])
    func otherDurationsAreRefused(_ text: String) {
        #expect(DurationArgument(argument: text) == nil)
    }
}
