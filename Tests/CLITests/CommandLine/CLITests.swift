import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite struct CLITests {
    @Test func signInTokenWhoamiRequestStatusAndLogout() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment

                let signIn = try await login(emulator, environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                #expect(signIn.stdout.contains("Signed in to \(emulator.portalURL) as alice"))
                #expect(!signIn.stdout.contains(alicePassword) && !signIn.stderr.contains(alicePassword))

                // In the keyring, with readable attributes and label, and nothing secret in them.
                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(items.contains("label = portal-auth: alice @ \(emulator.portalURL)"))
                #expect(items.contains("attribute.kind = token"))
                #expect(items.contains("attribute.username = alice"))
                #expect(!items.contains(alicePassword))

                let token = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
                #expect(token.status == 0, "\(token.stderr)")
                let plain = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(!plain.isEmpty && !plain.contains(" "))
                let attributeLines = items.split(separator: "\n").filter {
                    $0.hasPrefix("attribute.") || $0.hasPrefix("label")
                }
                #expect(attributeLines.allSatisfy { !$0.contains(plain) })

                let json = try await CLI.portalAuth(
                    ["token", emulator.portalURL, "--format", "json"], emulator: emulator, environment: env)
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(object["token"] as? String == plain)
                #expect(object["ssl"] as? Bool == true)
                #expect(object["server"] as? String == emulator.portalURL)
                #expect(
                    (object["expires"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }.map { $0 > Date() }
                        == true
                )

                let header = try await CLI.portalAuth(
                    ["token", "--format", "header"], emulator: emulator, environment: env)
                #expect(header.trimmedStdout == "Authorization: Bearer \(plain)", "\(header.stdout)")
                let exports = try await CLI.portalAuth(
                    ["token", "--format", "env"], emulator: emulator, environment: env)
                #expect(exports.stdout.contains("export PORTAL_AUTH_TOKEN='\(plain)'"))

                // A federated server's token, obtained from the portal and cached.
                let query = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query"
                let serverToken = try await CLI.portalAuth(["token", query], emulator: emulator, environment: env)
                #expect(serverToken.status == 0, "\(serverToken.stderr)")
                #expect(serverToken.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != plain)
                _ = try await CLI.portalAuth(["token", query], emulator: emulator, environment: env)
                #expect(emulator.counters().serverTokenRequests == 1)

                let whoami = try await CLI.portalAuth(["whoami"], emulator: emulator, environment: env)
                #expect(whoami.status == 0, "\(whoami.stderr)")
                #expect(whoami.stdout.contains("alice (Alice Anderson) <alice@example.com>"))
                #expect(whoami.stdout.contains("member since"))
                #expect(whoami.stdout.contains("GeocodeServer"))
                #expect(whoami.stdout.contains("Route_World"))
                let thumbnail = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "thumb-\(UUID().uuidString).png"
                )
                .path
                defer { try? FileManager.default.removeItem(atPath: thumbnail) }
                let withThumb = try await CLI.portalAuth(
                    ["whoami", "--json", "--thumbnail", thumbnail], emulator: emulator, environment: env)
                #expect(withThumb.status == 0, "\(withThumb.stderr)")
                let png = try Data(contentsOf: URL(fileURLWithPath: thumbnail))
                #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))

                let request = try await CLI.portalAuth(
                    [
                        "request", query, "-f", "where=UseType = 'Government'", "-f", "outFields=*", "-f",
                        "geometry=-117.3,34.0,-117.1,34.1",
                        "-f", "geometryType=esriGeometryEnvelope", "-f", "returnGeometry=false",
                    ], emulator: emulator, environment: env)
                #expect(request.status == 0, "\(request.stderr)")
                let result = try #require(
                    try JSONSerialization.jsonObject(with: Data(request.stdout.utf8)) as? [String: Any])
                let features = try #require(result["features"] as? [[String: Any]])
                #expect(!features.isEmpty)
                #expect(
                    features.allSatisfy {
                        (($0["attributes"] as? [String: Any])?["UseType"] as? String) == "Government"
                    })

                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains(emulator.portalURL) && status.stdout.contains(emulator.serverURL))
                #expect(status.stdout.contains("token") && status.stdout.contains("federated-token"))
                #expect(!status.stdout.contains(plain))

                let logout = try await CLI.portalAuth(
                    ["logout", "--portal", emulator.portalURL], emulator: emulator, environment: env)
                #expect(logout.status == 0, "\(logout.stderr)")
                #expect(logout.stdout.contains("removed 2 credentials"))
                #expect(!(try await CLI.keyringItems(server: emulator.portalURL, environment: env)).contains("label"))
                #expect(!(try await CLI.keyringItems(server: emulator.serverURL, environment: env)).contains("label"))

                let after = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                #expect(after.status == 3)
                #expect(after.oneLineError)
                #expect(after.stderr.contains("portal-auth login --portal \(emulator.portalURL)"))
            }
        }
    }

    @Test func tokenWithoutCredentialNamesTheLoginCommand() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                ["token", emulator.portalURL + "/sharing/rest/community/self"], emulator: emulator)
            #expect(r.status == 3)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("portal-auth login --portal \(emulator.portalURL)"))
            #expect(r.stdout.isEmpty)
        }
    }

    @Test func requestWithoutCredentialNeverPromptsWithoutATerminal() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/community/self"], emulator: emulator)
            #expect(r.status == 3)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("stdin is not a terminal"))
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    @Test func wrongPasswordStoresNothing() async throws {
        try await withEmulator { emulator in
            let r = try await login(emulator, password: "not-the-password")
            #expect(r.status == 3)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("refused the username or password for alice"))
            #expect(!r.stderr.contains("not-the-password"))
            #expect(!(try await CLI.keyringItems(server: emulator.portalURL)).contains("label"))
        }
    }

    @Test func aCredentialSurvivesAFailedReLogin() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await login(emulator, environment: env).status == 0)
                let before = try await CLI.portalAuth(["token"], emulator: emulator, environment: env).stdout
                #expect(try await login(emulator, password: "wrong", environment: env).status == 3)
                emulator.inject(Fault(kind: .http500, pathContains: "generateToken", count: nil, milliseconds: nil))
                #expect(try await login(emulator, environment: env).status != 0)
                let after = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
                #expect(after.status == 0)
                #expect(after.stdout == before)
            }
        }
    }

    @Test func emptyPasswordOnStdinIsRefused() async throws {
        try await withEmulator { emulator in
            let r = try await login(emulator, password: "")
            #expect(r.status == 3)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("empty password"))
            #expect(emulator.counters().generateTokenRequests == 0)
            #expect(!(try await CLI.keyringItems(server: emulator.portalURL)).contains("label"))
        }
    }

    @Test func urlWithoutSchemeIsRefused() async throws {
        let r = try await CLI.portalAuth(
            ["login", "--portal", "portal.example.com/portal", "--username", "alice", "--password-stdin"],
            emulator: nil, stdin: "x")
        #expect(r.status == 2)
        #expect(r.oneLineError)
        #expect(r.stderr.contains("https://portal.example.com/portal"))
    }

    @Test func connectionRefusedAndUnknownHost() async throws {
        let refused = try await CLI.portalAuth(
            ["login", "--portal", "https://127.0.0.1:1/portal", "--username", "alice", "--password-stdin"],
            emulator: nil, stdin: "x")
        #expect(refused.status == 4)
        #expect(refused.oneLineError)
        #expect(refused.stderr.contains("127.0.0.1:1"))
        let unknown = try await CLI.portalAuth(
            ["login", "--portal", "https://nonexistent.invalid/portal", "--username", "alice", "--password-stdin"],
            emulator: nil, stdin: "x")
        #expect(unknown.status == 4)
        #expect(unknown.oneLineError)
        #expect(unknown.stderr.contains("nonexistent.invalid"))
    }

    @Test func untrustedCertificate() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"], emulator: nil,
                stdin: alicePassword,
                removing: ["PORTAL_AUTH_CA_BUNDLE"])
            #expect(r.status == 4)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("--cacert"))
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    @Test(arguments: ["html", "malformedJSON", "http500"])
    func badAnswersFromTheTokenService(kind: String) async throws {
        try await withEmulator { emulator in
            emulator.inject(
                Fault(kind: Fault.Kind(rawValue: kind)!, pathContains: "generateToken", count: nil, milliseconds: nil))
            let r = try await login(emulator)
            #expect(r.status == 1)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("127.0.0.1:\(emulator.port)"))
            #expect(!(try await CLI.keyringItems(server: emulator.portalURL)).contains("label"))
        }
    }

    @Test func pregeneratedTokenLoginAndExpiry() async throws {
        try await withEmulator { emulator in
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 600)
            let r = try await CLI.portalAuth(
                ["login", "--url", emulator.portalURL, "--token-stdin", "--expires-in", "600"], emulator: emulator,
                stdin: token + "\n")
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.contains(token))
            let me = try await CLI.portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/community/self"], emulator: emulator)
            #expect(me.status == 0, "\(me.stderr)")
            #expect(me.stdout.contains("\"alice\""))
            #expect(try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator).stdout == token + "\n")

            let empty = try await CLI.portalAuth(
                ["login", "--url", emulator.portalURL, "--token-stdin"], emulator: emulator, stdin: "")
            #expect(empty.status == 3)
            #expect(empty.oneLineError)
            // The stored token is still there.
            #expect(try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator).stdout == token + "\n")

            let short = try await CLI.portalAuth(
                ["login", "--url", emulator.portalURL, "--token-stdin", "--expires-in", "3600"], emulator: emulator,
                stdin: token)
            #expect(short.status == 0)
            // Its stored expiry moved to 1970: no waiting for the clock.
            try await expireStoredToken(emulator.portalURL, environment: [:])
            let expired = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator)
            #expect(expired.status == 3)
            #expect(expired.oneLineError)
            #expect(expired.stderr.contains("expired"))
            _ = try await CLI.portalAuth(["logout", "--portal", emulator.portalURL], emulator: emulator)
        }
    }

    @Test func verboseLogsHoldNoSecrets() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                ["login", "-vv", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"],
                emulator: emulator, stdin: alicePassword)
            #expect(r.status == 0, "\(r.stderr)")
            let token = try await CLI.portalAuth(["token"], emulator: emulator).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            let query = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query"
            let q = try await CLI.portalAuth(
                ["request", "-vv", query, "-f", "where=1=1", "-f", "returnCountOnly=true"], emulator: emulator)
            #expect(q.status == 0, "\(q.stderr)")
            #expect(q.stderr.contains("request"))  // debug logging is on
            for output in [r.stderr, r.stdout, q.stderr] {
                #expect(!output.contains(alicePassword))
                #expect(!output.contains(token))
            }
            _ = try await CLI.portalAuth(["logout", "--portal", emulator.portalURL], emulator: emulator)
        }
    }

    @Test func keyringWithoutSessionBusSaysHowToFixIt() async throws {
        try await withEmulator { emulator in
            // The keyring chosen explicitly: no headless store replaces it (#39).
            let r = try await CLI.portalAuth(
                [
                    "login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin", "--store",
                    "keyring",
                ],
                emulator: emulator,
                stdin: alicePassword,
                environment: ["XDG_RUNTIME_DIR": "/nonexistent"], removing: ["DBUS_SESSION_BUS_ADDRESS"])
            #expect(r.status == 5)
            #expect(r.oneLineError)
            #expect(r.stderr.contains("no D-Bus session bus"))
            #expect(r.stderr.contains("--store file"))
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    @Test func lockedKeyringSaysHowToFixIt() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.inPrivateKeyring(
                """
                printf %s "$PW" | "$PA" login --portal "$PORTAL" --username alice --password-stdin; echo "exit=$?"
                """, unlock: false,
                environment: [
                    "PW": alicePassword, "PORTAL": emulator.portalURL,
                    "PORTAL_AUTH_CA_BUNDLE": emulator.caCertificatePath,
                ])
            #expect(r.stdout.contains("exit=5"), "\(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("locked"))
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    /// `token` reads with one libsecret call; a collection locked after sign-in is reported as locked.
    @Test func tokenFromALockedCollectionSaysHowToFixIt() async throws {
        let r = try await CLI.inPrivateKeyring(
            #"""
            printf %s tok-123 | "$PA" login --url https://locked.invalid/portal --token-stdin --unchecked --expires-in 3600 >/dev/null
            "$PA" token https://locked.invalid/portal; echo "first=$?"
            C=$(gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets --method org.freedesktop.Secret.Service.ReadAlias default | grep -o "/org/freedesktop/secrets/collection/[A-Za-z0-9_]*")
            gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets --method org.freedesktop.Secret.Service.Lock "[\"$C\"]" >/dev/null
            timeout 30 "$PA" token https://locked.invalid/portal; echo "second=$?"
            """#)
        #expect(r.stdout.contains("tok-123\nfirst=0"), "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("second=5"), "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("portal-auth: the keyring's default collection is locked"))
    }

    @Test func logoutAllClearsEveryItemOfAPrivateKeyring() async throws {
        try await withEmulator { emulator in
            let token = emulator.issueToken(username: "bob", lifetimeSeconds: 600)
            let r = try await CLI.inPrivateKeyring(
                """
                printf %s "$PW" | "$PA" login --portal "$PORTAL" --username alice --password-stdin >/dev/null || exit 10
                printf %s "$TOKEN" | "$PA" login --url "$SERVER" --token-stdin >/dev/null || exit 11
                printf %s other | secret-tool store --label=other application other-app server x
                "$PA" status
                "$PA" logout --all || exit 12
                echo "left=$(secret-tool search --all application portal-auth 2>&1 | grep -c '^label')"
                echo "other=$(secret-tool lookup application other-app server x)"
                """,
                environment: [
                    "PW": alicePassword, "TOKEN": token, "PORTAL": emulator.portalURL,
                    "SERVER": emulator.standaloneServerURL,
                    "PORTAL_AUTH_CA_BUNDLE": emulator.caCertificatePath,
                ])
            #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
            #expect(r.stdout.contains("pregenerated-token"))
            #expect(r.stdout.contains("Removed 2 credentials"))
            #expect(r.stdout.contains("left=0"))
            #expect(r.stdout.contains("other=other"))
        }
    }

    @Test func fileStoreIsPrivateAndSafeWithConcurrentWriters() async throws {
        try await withEmulator { emulator in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-file-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let path = dir.appendingPathComponent("credentials.json").path
            let env = ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": path]
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 600)
            try await withThrowingTaskGroup(of: Int32.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        try await CLI.portalAuth(
                            ["login", "--url", "\(emulator.baseURL)/site\(i)", "--token-stdin", "--unchecked"],
                            emulator: emulator,
                            stdin: token, environment: env
                        ).status
                    }
                }
                for try await status in group { #expect(status == 0) }
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let status = try await CLI.portalAuth(["status", "--json"], emulator: emulator, environment: env)
            let items = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            #expect(items.count == 8)
            #expect(items.allSatisfy { $0["backend"] as? String == "file" })
            #expect(!status.stdout.contains(token))
            // Nothing was written to the keyring.
            #expect(!(try await CLI.keyringItems(server: "\(emulator.baseURL)/site0")).contains("label"))
        }
    }

    @Test func doctorReportsTheStoreInUse() async throws {
        let r = try await CLI.portalAuth(["doctor"], emulator: nil)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("store in use: keyring (the default)"))
        #expect(r.stdout.contains("[ok]     keyring"))
        #expect(r.stdout.contains("libcurl"))
        let noBus = try await CLI.portalAuth(
            ["doctor"], emulator: nil,
            environment: ["XDG_RUNTIME_DIR": "/nonexistent", "PORTAL_AUTH_STORE": "keyring"],
            removing: ["DBUS_SESSION_BUS_ADDRESS"])
        #expect(noBus.status == 5)
        #expect(noBus.stdout.contains("no D-Bus session bus"))
        let file = try await CLI.portalAuth(
            ["doctor", "--store", "file"], emulator: nil, environment: ["XDG_RUNTIME_DIR": "/nonexistent"],
            removing: ["DBUS_SESSION_BUS_ADDRESS"])
        #expect(file.stdout.contains("store in use: file (--store file)"))
        #expect(file.status == 0)
    }

    @Test func unknownStoreIsRefused() async throws {
        let r = try await CLI.portalAuth(["status", "--store", "vault"], emulator: nil)
        #expect(r.status == 2)
        #expect(r.oneLineError)
        #expect(r.stderr.contains("choose keyring, file or memory"))
    }
}
