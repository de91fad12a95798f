import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth import arcgis-profile` imports the profiles the real ArcGIS API for Python
/// (`arcgis` from PyPI, with the `keyring` module on the same private Secret Service) saved
/// against portal-emulator: a profile becomes an account only once the portal accepted its
/// password, and the API's file and keyring item are left as they were.
@Suite struct ArcGISProfileImportTests {
    /// A private keyring, an emulator and an empty home folder for both the API and portal-auth.
    func withHome(_ body: (PortalEmulator, [String: String], String) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pa-home-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await withPrivateKeyring { keyring in
            try await withEmulator { emulator in
                try await body(emulator, keyring.environment.merging(["HOME": home]) { $1 }, home)
            }
        }
    }

    /// `GIS(url, username, password, profile=name)` run by the real API; its report.
    func save(
        _ name: String, user: String, password: String, clientID: String? = nil, _ emulator: PortalEmulator,
        _ env: [String: String]
    ) async throws -> [String: Any] {
        var secrets = ["ARCGIS_USERNAME": user, "ARCGIS_PASSWORD": password]
        if let clientID { secrets["ARCGIS_CLIENT_ID"] = clientID }
        let environment = env.merging(secrets) { $1 }.merging([
            "ARCGIS_PORTAL_URL": emulator.portalURL, "ARCGIS_CA": emulator.caCertificatePath,
        ]) { $1 }
        let result = try await RealClients.runScript("arcgis_profile.py", [name], environment: environment)
        let report = try RealClients.report(result)
        #expect(report["keyring"] as? String == "keyring.backends.SecretService.Keyring", "\(report)")
        #expect((report["profiles"] as? [String])?.contains(name) == true, "\(report) \(result.stderr)")
        return report
    }

    /// The Python keyring's item for a profile, as `secret-tool` reads it.
    func pythonKeyringItem(_ name: String, _ env: [String: String]) async throws -> String {
        try await CLI.run(
            "/usr/bin/secret-tool", ["lookup", "service", "arcgis_python_api_profile_passwords", "username", name],
            environment: env
        ).stdout
    }

    @Test func aProfileTheRealAPISavedSignsInAfterItsImport() async throws {
        try await withHome { emulator, env, home in
            let report = try await save("emu", user: "alice", password: alicePassword, emulator, env)
            #expect(report["signIn"] as? String == "ok", "\(report)")
            let file = home + "/.arcgisprofile"
            let before = try String(contentsOfFile: file, encoding: .utf8)
            #expect(before.contains("[emu]") && before.contains("username = alice"))

            let imported = try await CLI.portalAuth(
                ["import", "arcgis-profile", "emu"], emulator: emulator, environment: env)
            #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
            #expect(imported.stdout.contains("Profile emu (~/.arcgisprofile): signed in to"), "\(imported.stdout)")
            #expect(imported.stdout.contains("as alice; the password is kept in the keyring store"))
            #expect(!(imported.stdout + imported.stderr).contains(alicePassword))

            let whoami = try await CLI.portalAuth(["whoami"], emulator: emulator, environment: env)
            #expect(whoami.status == 0 && whoami.stdout.contains("alice"), "\(whoami.stdout) \(whoami.stderr)")
            let token = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator, environment: env)
            #expect(token.status == 0 && !token.trimmedStdout.isEmpty, "\(token.stderr)")
            let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
            #expect(status.stdout.contains("renews unattended"), "\(status.stdout)")
            // Nothing written to the API's file or its keyring item.
            #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
            #expect(try await pythonKeyringItem("emu", env) == alicePassword)
        }
    }

    @Test func aProfileWhosePasswordThePortalRefusesSaysWhyAndStoresNothing() async throws {
        try await withHome { emulator, env, _ in
            let refused = try await save("wrong", user: "bob", password: "not-bobs-password", emulator, env)
            #expect(refused["signIn"] as? String != "ok", "\(refused)")
            _ = try await save("emu", user: "alice", password: alicePassword, emulator, env)

            let imported = try await CLI.portalAuth(["import", "arcgis-profile"], emulator: emulator, environment: env)
            #expect(imported.status == 1, "\(imported.stdout) \(imported.stderr)")
            let lines = imported.stdout.split(separator: "\n")
            #expect(lines.count == 2, "\(imported.stdout)")
            let wrong = lines.first { $0.hasPrefix("Profile wrong ") }
            #expect(wrong?.contains(": not imported: ") == true, "\(imported.stdout)")
            #expect(lines.contains { $0.hasPrefix("Profile emu ") && $0.contains("as alice") }, "\(imported.stdout)")
            #expect(!imported.stdout.contains("not-bobs-password"))
            // bob has neither an account nor a kept password; alice has both.
            let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
            #expect(!items.contains("username = bob"), "\(items)")
            #expect(items.contains("username = alice"), "\(items)")
        }
    }

    /// `GIS(url, username, password, client_id=..., profile=...)`: the API signs in with OAuth and
    /// keeps the refresh token in the password's place; the import signs in with it (and the API's
    /// profile keeps working).
    @Test func anOAuthProfileIsImportedWithTheRefreshTokenTheAPIKept() async throws {
        try await withHome { emulator, env, home in
            let report = try await save(
                "oauth", user: "alice", password: alicePassword, clientID: "pythonapi", emulator, env)
            #expect(report["signIn"] as? String == "ok", "\(report)")
            let text = try String(contentsOfFile: home + "/.arcgisprofile", encoding: .utf8)
            #expect(text.contains("client_id = pythonapi"), "\(text)")
            let kept = try await pythonKeyringItem("oauth", env)
            #expect(!kept.isEmpty && kept != alicePassword, "the API kept its refresh token")

            let imported = try await CLI.portalAuth(["import", "arcgis-profile"], emulator: emulator, environment: env)
            #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
            #expect(imported.stdout.contains("as alice with OAuth (app pythonapi)"), "\(imported.stdout)")
            #expect(!imported.stdout.contains(kept))
            let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
            #expect(status.stdout.contains("oauth-user"), "\(status.stdout)")
            let request = try await CLI.portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/community/self?f=json"], emulator: emulator,
                environment: env)
            #expect(request.status == 0 && request.stdout.contains("alice"), "\(request.stderr)")
            // The API's refresh token still works for the API: nothing of it was exchanged or revoked.
            #expect(try await pythonKeyringItem("oauth", env) == kept)
            #expect(emulator.counters().exchangeRefreshTokenGrants == 0)
        }
    }

    /// `~/.agsprofile` (`arcgis.gis.server.Server`'s profiles), its password under the name
    /// Windows' credential manager shows (`NAME@esri_ags_profile_passwords`), which scripts copy.
    @Test func aServerProfileIsImportedAsASignInToItsServer() async throws {
        try await withHome { emulator, env, home in
            let server = emulator.standaloneServerURL
            try "[ags]\nurl = \(server)/admin\nusername = alice\n".write(
                toFile: home + "/.agsprofile", atomically: true, encoding: .utf8)
            let stored = try await CLI.run(
                "/usr/bin/secret-tool",
                ["store", "--label", "ags", "service", "ags@esri_ags_profile_passwords", "username", "ags"],
                stdin: alicePassword, environment: env)
            #expect(stored.status == 0, "\(stored.stderr)")
            let imported = try await CLI.portalAuth(["import", "arcgis-profile"], emulator: emulator, environment: env)
            #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
            #expect(imported.stdout.contains("Profile ags (~/.agsprofile): signed in to"), "\(imported.stdout)")
            let token = try await CLI.portalAuth(
                ["token", server + "/rest/services"], emulator: emulator, environment: env)
            #expect(token.status == 0, "\(token.stderr)")
            #expect(emulator.counters().standaloneTokenRequests == 1)
        }
    }

    @Test func aProfileWithoutAPasswordOrWithAnUnknownNameSaysWhatToRun() async throws {
        try await withHome { emulator, env, home in
            let text =
                "[nopass]\nurl = \(emulator.portalURL)\nusername = alice\ndate_modified = x\n\n"
                + "[oauth]\nurl = \(emulator.portalURL)\nclient_id = abcdef\n"
            try text.write(toFile: home + "/.arcgisprofile", atomically: true, encoding: .utf8)
            let imported = try await CLI.portalAuth(["import", "arcgis-profile"], emulator: emulator, environment: env)
            #expect(imported.status == 1)
            #expect(imported.stdout.contains("the keyring holds no password for it"), "\(imported.stdout)")
            #expect(imported.stdout.contains("portal-auth login --portal \(emulator.portalURL) --client-id abcdef"))
            // (A global option before `import arcgis-profile` goes after both words.)
            let unknown = try await CLI.portalAuth(
                ["--store", "keyring", "import", "arcgis-profile", "missing"], emulator: emulator, environment: env)
            #expect(unknown.status == 2 && unknown.stderr.contains("no profile named missing"), "\(unknown.stderr)")
        }
    }
}
