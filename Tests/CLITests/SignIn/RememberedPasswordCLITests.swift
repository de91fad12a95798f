import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `login --remember-password`: the password in an item of its own, and an expired token
/// generated again with it in any later process, with no prompt.
@Suite struct RememberedPasswordCLITests {
    /// Moves the expiry of the token credential stored for `url` in the keyring of `environment`
    /// to 1970, the item written with portal-auth's schema name, as libsecret stores it, so that
    /// portal-auth's next store replaces it.
    static func expireStoredTokenCredential(_ url: String, environment: [String: String]) async throws {
        try await expireStoredToken(
            url, environment: environment,
            attributes: ["kind", "token", "username", "alice", "xdg:schema", "org.portal-auth.Credential"])
    }

    @Test func anExpiredTokenRenewsUnattendedInANewProcessAndLogoutForgetsThePassword() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let signIn = try await login(emulator, extra: ["--remember-password"], environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                #expect(signIn.stdout.contains("renews unattended"))
                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(items.contains("attribute.store = arcgis-password"))
                #expect(items.contains("attribute.kind = remembered-password"))
                let visible = items.split(separator: "\n").filter {
                    $0.hasPrefix("attribute.") || $0.hasPrefix("label")
                }
                #expect(visible.allSatisfy { !$0.contains(alicePassword) })
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("\(emulator.portalURL) (alice): renews unattended"))
                // It renews without end: nobody need sign in again by any date.
                #expect(try await Self.renewableUntil(emulator, environment: env).map { $0 is NSNull } == [true])

                let first = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                // The token expires here and at the portal; no terminal, no password on stdin.
                try await Self.expireStoredTokenCredential(emulator.portalURL, environment: env)
                emulator.clock.advance(by: .seconds(7200))
                let renewed = try await CLI.portalAuth(
                    ["token", "-vv", emulator.portalURL], emulator: emulator, environment: env)
                #expect(renewed.status == 0, "\(renewed.stderr)")
                #expect(!renewed.stdout.isEmpty && renewed.stdout != first.stdout)
                #expect(!renewed.stderr.contains(alicePassword))
                #expect(emulator.counters().generateTokenRequests == 2)
                let after = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(after.components(separatedBy: "attribute.store = arcgis\n").count == 2, "\(after)")
                let me = try await CLI.portalAuth(
                    ["request", emulator.portalURL + "/sharing/rest/community/self"], emulator: emulator,
                    environment: env)
                #expect(me.status == 0 && me.stdout.contains("\"alice\""), "\(me.stderr)")
                #expect(emulator.counters().generateTokenRequests == 2, "\(me.stderr)")

                let logout = try await CLI.portalAuth(
                    ["logout", "--portal", emulator.portalURL], emulator: emulator, environment: env)
                #expect(logout.status == 0, "\(logout.stderr)")
                #expect(!(try await CLI.keyringItems(server: emulator.portalURL, environment: env)).contains("label"))
            }
        }
    }

    @Test func aStandaloneServerRenewsUnattendedToo() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let server = emulator.standaloneServerURL
                let signIn = try await CLI.portalAuth(
                    [
                        "login", "--url", server + "/rest/services", "--username", "alice", "--password-stdin",
                        "--remember-password",
                    ],
                    emulator: emulator, stdin: alicePassword, environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                try await Self.expireStoredTokenCredential(server, environment: env)
                emulator.clock.advance(by: .seconds(7200))
                let renewed = try await CLI.portalAuth(
                    ["token", server + "/rest/services"], emulator: emulator, environment: env)
                #expect(renewed.status == 0, "\(renewed.stderr)")
                #expect(emulator.counters().standaloneTokenRequests == 2)
            }
        }
    }

    @Test func withoutTheFlagAnExpiredTokenStillNeedsASignIn() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await login(emulator, environment: env).status == 0)
                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(!items.contains("arcgis-password"))
                try await Self.expireStoredTokenCredential(emulator.portalURL, environment: env)
                let expired = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                #expect(expired.status == 3)
                #expect(expired.oneLineError)
                #expect(emulator.counters().generateTokenRequests == 1)
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(!status.stdout.contains("renews unattended"))
                // It lasts until its token expires (already past here).
                let rows = try await Self.statusRows(emulator, environment: env)
                #expect(rows.count == 1 && rows[0]["renewableUntil"] as? String == rows[0]["expires"] as? String)
                #expect(rows.first?["renewableUntil"] is String, "\(rows)")
            }
        }
    }

    /// The rows `status --json` prints.
    static func statusRows(_ emulator: PortalEmulator, environment: [String: String]) async throws -> [[String: Any]] {
        let status = try await CLI.portalAuth(["status", "--json"], emulator: emulator, environment: environment)
        return try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
    }

    /// The `renewableUntil` of each sign-in `status --json` lists.
    static func renewableUntil(_ emulator: PortalEmulator, environment: [String: String]) async throws -> [Any] {
        try await statusRows(emulator, environment: environment).compactMap { $0["renewableUntil"] }
    }

    @Test func theMemoryStoreAndOtherSignInsRefuseTheFlag() async throws {
        try await withEmulator { emulator in
            let memory = try await login(emulator, extra: ["--remember-password", "--store", "memory"])
            #expect(memory.status == 2)
            #expect(memory.oneLineError && memory.stderr.contains("memory"), "\(memory.stderr)")
            #expect(emulator.counters().generateTokenRequests == 0)
            let app = try await CLI.portalAuth(
                [
                    "login", "--portal", emulator.portalURL, "--client-id", "portal-auth-app", "--client-secret-stdin",
                    "--remember-password",
                ], emulator: emulator, stdin: "app-secret-456")
            #expect(app.status != 0)
            #expect(app.stderr.contains("--remember-password"))
        }
    }

    @Test func theFileStoreKeepsThePasswordInItsOwnItemUntilLogout() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory { dir in
                let path = dir + "/credentials.json"
                let env = ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": path]
                let signIn = try await login(emulator, extra: ["--remember-password"], environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                let file = try String(contentsOfFile: path, encoding: .utf8)
                #expect(file.contains("arcgis-password") && file.contains("remembered-password"))
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("renews unattended (password kept in the file store)"))
                let logout = try await CLI.portalAuth(
                    ["logout", "--portal", emulator.portalURL], emulator: emulator, environment: env)
                #expect(logout.status == 0, "\(logout.stderr)")
                #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("arcgis-password"))
            }
        }
    }

    /// alice and bob both keep their passwords at one portal: each renews with their own, and
    /// signing one out forgets only theirs.
    @Test func twoAccountsEachRenewWithTheirOwnPassword() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await login(emulator, extra: ["--remember-password"], environment: env).status == 0)
                let bob = try await CLI.portalAuth(
                    [
                        "login", "--portal", emulator.portalURL, "--username", "bob", "--password-stdin",
                        "--remember-password",
                    ],
                    emulator: emulator, stdin: AccountsCLITests.bobPassword, environment: env)
                #expect(bob.status == 0, "\(bob.stderr)")
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("\(emulator.portalURL) (alice): renews unattended"), "\(status.stdout)")
                #expect(status.stdout.contains("\(emulator.portalURL) (bob): renews unattended"), "\(status.stdout)")

                let me = emulator.portalURL + "/sharing/rest/community/self"
                try await Self.expireStoredTokenCredential(emulator.portalURL, environment: env)
                emulator.clock.advance(by: .seconds(7200))
                let alice = try await CLI.portalAuth(["request", me], emulator: emulator, environment: env)
                #expect(alice.status == 0 && alice.stdout.contains("\"alice\""), "\(alice.stderr)")
                #expect(try await CLI.portalAuth(["switch", "bob"], emulator: emulator, environment: env).status == 0)
                try await expireStoredToken(
                    emulator.portalURL, environment: env,
                    attributes: ["kind", "token", "username", "bob", "xdg:schema", "org.portal-auth.Credential"])
                let asBob = try await CLI.portalAuth(["request", me], emulator: emulator, environment: env)
                #expect(asBob.status == 0 && asBob.stdout.contains("\"bob\""), "\(asBob.stderr)")
                #expect(emulator.counters().generateTokenRequests == 4)

                let logout = try await CLI.portalAuth(
                    ["logout", "--account", "alice"], emulator: emulator, environment: env)
                #expect(logout.status == 0, "\(logout.stderr)")
                let after = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(!after.stdout.contains("(alice): renews unattended"), "\(after.stdout)")
                #expect(after.stdout.contains("(bob): renews unattended"), "\(after.stdout)")
            }
        }
    }
}
