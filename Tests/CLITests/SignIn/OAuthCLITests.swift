import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The repository's Tests/Clients folder (the scripted browser lives there).
let testClientsFolder = RealClients.scripts

/// The environment that makes `portal-auth` sign in through Tests/Clients/scripted-browser.py.
func scriptedBrowser(
    _ emulator: PortalEmulator, action: String = "approve", state: String? = nil,
    log: String? = nil, oobOut: String? = nil
) -> [String: String] {
    var env = [
        "BROWSER": testClientsFolder + "/scripted-browser.py", "SCRIPTED_BROWSER_CA": emulator.caCertificatePath,
        "SCRIPTED_BROWSER_ACTION": action,
    ]
    if let state { env["SCRIPTED_BROWSER_STATE"] = state }
    if let log { env["SCRIPTED_BROWSER_LOG"] = log }
    if let oobOut { env["SCRIPTED_BROWSER_OOB_OUT"] = oobOut }
    return env
}

func temporaryPath(_ prefix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
}

func oauthLogin(
    _ emulator: PortalEmulator, _ extra: [String] = [], environment: [String: String] = [:],
    browser: [String: String]? = nil
) async throws -> CLIResult {
    try await CLI.portalAuth(
        ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-cli"] + extra, emulator: emulator,
        environment: (browser ?? scriptedBrowser(emulator)).merging(environment) { $1 })
}

extension CLIResult {
    var trimmedStdout: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
}

@Suite struct OAuthCLITests {
    @Test func loopbackSignInThenTokenWhoamiRequestStatusAndLogoutRevokes() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment

                let signIn = try await oauthLogin(emulator, environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                #expect(
                    signIn.stdout.contains(
                        "Signed in to \(emulator.portalURL) as alice with OAuth (app portal-auth-cli)"))
                #expect(signIn.stderr.contains("waiting for the browser to come back to http://127.0.0.1:"))
                #expect(signIn.stderr.contains("Ctrl-C to cancel"))
                #expect(emulator.counters().authorizationCodeGrants == 1)

                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(items.contains("attribute.kind = oauth-user"))
                #expect(items.contains("label = portal-auth: alice @ \(emulator.portalURL)"))

                let token = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
                #expect(token.status == 0, "\(token.stderr)")
                let access = token.trimmedStdout
                #expect(!access.isEmpty)
                let described = items.split(separator: "\n").filter {
                    $0.hasPrefix("attribute.") || $0.hasPrefix("label")
                }
                .joined(separator: "\n")
                #expect(!described.isEmpty && !described.contains(access))

                let whoami = try await CLI.portalAuth(["whoami"], emulator: emulator, environment: env)
                #expect(whoami.stdout.contains("alice (Alice Anderson)"), "\(whoami.stderr)")
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("oauth-user"), "\(status.stdout)")
                #expect(status.stdout.contains(emulator.portalURL))
                let request = try await CLI.portalAuth(
                    [
                        "request",
                        emulator.serverURL
                            + "/rest/services/Parcels/FeatureServer/0/query?where=1%3D1&returnCountOnly=true",
                    ],
                    emulator: emulator, environment: env)
                #expect(request.status == 0, "\(request.stderr)")
                #expect(request.stdout.contains("\"count\""))
                #expect(emulator.counters().serverTokenRequests == 1)

                let logout = try await CLI.portalAuth(["logout"], emulator: emulator, environment: env)
                #expect(logout.status == 0, "\(logout.stderr)")
                #expect(logout.stdout.contains("Revoked the OAuth tokens of alice @ \(emulator.portalURL)."))
                #expect(emulator.isRevoked(access))
                #expect(emulator.counters().revokeRequests == 2)
                #expect(!(try await CLI.keyringItems(server: emulator.portalURL, environment: env)).contains("label"))
            }
        }
    }

    @Test func outOfBandSignInReadsThePastedCode() async throws {
        try await withEmulator { emulator in
            // The scripted browser writes the code from the approval page into a FIFO that is
            // portal-auth's stdin: a person pasting it.
            let fifo = temporaryPath("oob")
            let script = """
                mkfifo "$FIFO" && exec 3<>"$FIFO" && "$PA" login --portal "$PORTAL" --client-id portal-auth-cli --oob <&3
                """
            var env = scriptedBrowser(emulator, oobOut: fifo)
            env["FIFO"] = fifo
            env["PA"] = CLI.portalAuth
            env["PORTAL"] = emulator.portalURL
            env["PORTAL_AUTH_CA_BUNDLE"] = emulator.caCertificatePath
            defer { try? FileManager.default.removeItem(atPath: fifo) }
            let r = try await CLI.run("/bin/sh", ["-c", script], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("then paste the code the portal shows"))
            #expect(r.stdout.contains("as alice with OAuth"))
            let token = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator)
            #expect(token.status == 0, "\(token.stderr)")
            _ = try await CLI.portalAuth(["logout", "--portal", emulator.portalURL], emulator: emulator)
        }
    }

    @Test func noBrowserPrintsTheURLToOpen() async throws {
        try await withEmulator { emulator in
            // --no-browser never starts $BROWSER: nobody signs in, so the wait times out.
            let log = temporaryPath("browser-log")
            defer { try? FileManager.default.removeItem(atPath: log) }
            let r = try await oauthLogin(
                emulator, ["--no-browser", "--timeout", "2"], browser: scriptedBrowser(emulator, log: log))
            #expect(r.status != 0)
            #expect(r.stderr.contains("Open this URL in a browser to sign in:"))
            #expect(r.stderr.contains(emulator.portalURL + "/sharing/rest/oauth2/authorize?"))
            #expect(r.stderr.contains("code_challenge_method=S256"))
            #expect(!FileManager.default.fileExists(atPath: log))
            #expect(emulator.counters().authorizeRequests == 0)
        }
    }

    @Test func deniedConsentTamperedStateAndTimeoutStoreNothing() async throws {
        try await withEmulator { emulator in
            let denied = try await oauthLogin(emulator, browser: scriptedBrowser(emulator, action: "deny"))
            #expect(denied.status != 0)
            #expect(denied.stderr.contains("was declined (access_denied"), "\(denied.stderr)")
            // A forged state is turned away and the sign-in waits on for the real answer, which never
            // comes (OAuthTests.aTamperedStateIsTurnedAwayAndTheSignInGoesOn shows it step by step).
            let tampered = try await oauthLogin(
                emulator, ["--timeout", "3"], browser: scriptedBrowser(emulator, state: "tamper"))
            #expect(tampered.status != 0)
            #expect(tampered.stderr.contains("within 3 seconds"), "\(tampered.stderr)")
            let ignored = try await oauthLogin(
                emulator, ["--timeout", "3"], browser: scriptedBrowser(emulator, action: "ignore"))
            #expect(ignored.status != 0)
            #expect(ignored.stderr.contains("within 3 seconds"), "\(ignored.stderr)")
            for result in [denied, tampered, ignored] {
                #expect(result.stderr.split(separator: "\n").last?.hasPrefix("portal-auth: ") == true)
                #expect(result.stderr.contains("nothing was stored"))
            }
            #expect(emulator.counters().authorizationCodeGrants == 0)
            #expect(!(try await CLI.keyringItems(server: emulator.portalURL)).contains("label"))
        }
    }

    /// An unknown client ID is said at once (the portal's authorize endpoint is asked first, #29);
    /// a redirect URL the app does not register ends in the timeout that names it.
    @Test func unknownClientIsSaidAtOnceAndUnregisteredRedirectEndsInAClearTimeout() async throws {
        try await withEmulator { emulator in
            let log = temporaryPath("browser-log")
            defer { try? FileManager.default.removeItem(atPath: log) }
            let unknown = try await CLI.portalAuth(
                [
                    "login", "--portal", emulator.portalURL, "--client-id", "no-such-app", "--no-browser", "--timeout",
                    "3",
                ],
                emulator: emulator)
            #expect(unknown.status == 3)
            #expect(unknown.oneLineError, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("knows no app with the client ID no-such-app"), "\(unknown.stderr)")
            let unregistered = try await oauthLogin(
                emulator, ["--redirect-url", "http://127.0.0.1/not/registered", "--no-browser", "--timeout", "3"])
            #expect(unregistered.status != 0)
            #expect(unregistered.stderr.contains("redirect URL not registered"), "\(unregistered.stderr)")
            // The browser runs as this test's own child on the URLs printed, and is awaited before
            // its log is read (a browser portal-auth starts outlives it, so its log may come late).
            for printed in [unregistered.stderr] {
                let url = try #require(authorizationURL(in: printed, emulator), "\(printed)")
                let browser = try await CLI.run(
                    "/usr/bin/python3", [testClientsFolder + "/scripted-browser.py", url],
                    environment: scriptedBrowser(emulator, log: log))
                #expect(browser.status == 0, "\(browser.stderr)")
            }
            let seen = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(seen.contains("Invalid redirect_uri"), "\(seen)")
            #expect(!seen.contains("http://127.0.0.1"), "\(seen)")
            #expect(!(try await CLI.keyringItems(server: emulator.portalURL)).contains("label"))
        }
    }

    /// The authorization URL `--no-browser` printed.
    private func authorizationURL(in stderr: String, _ emulator: PortalEmulator) -> String? {
        stderr.split(whereSeparator: \.isWhitespace).map(String.init).first {
            $0.hasPrefix(emulator.portalURL + "/sharing/rest/oauth2/authorize?")
        }
    }

    @Test func aPortInUseIsNamed() async throws {
        try await withEmulator { emulator in
            // The emulator itself holds its port on 127.0.0.1.
            let r = try await oauthLogin(
                emulator, ["--redirect-url", "http://127.0.0.1:\(emulator.port)/oauth/callback"])
            #expect(r.status != 0)
            #expect(r.stderr.contains("port \(emulator.port) on 127.0.0.1 is already in use"), "\(r.stderr)")
            #expect(r.oneLineError)
            #expect(emulator.counters().authorizeRequests == 0)
        }
    }

    @Test(arguments: ["html", "malformedJSON", "http500"])
    func aBrokenTokenEndpointKeepsTheStoredCredential(_ kind: String) async throws {
        try await withEmulator { emulator in
            #expect(try await login(emulator).status == 0)
            let before = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator)
            emulator.inject(Fault(kind: Fault.Kind(rawValue: kind)!, pathContains: "oauth2/token"))
            let r = try await oauthLogin(emulator)
            #expect(r.status != 0)
            #expect(r.stderr.split(separator: "\n").last?.hasPrefix("portal-auth: ") == true)
            #expect(r.stderr.contains("127.0.0.1:\(emulator.port)"), "\(r.stderr)")
            let after = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator)
            #expect(after.trimmedStdout == before.trimmedStdout)
            #expect(try await CLI.keyringItems(server: emulator.portalURL).contains("attribute.kind = token"))
            _ = try await CLI.portalAuth(["logout", "--portal", emulator.portalURL], emulator: emulator)
        }
    }

    @Test func applicationSignInFromStdinAndEnvironment() async throws {
        try await withEmulator { emulator in
            let fromStdin = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-app", "--client-secret-stdin"],
                emulator: emulator, stdin: "app-secret-456")
            #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
            #expect(fromStdin.stdout.contains("as app portal-auth-app"))
            let items = try await CLI.keyringItems(server: emulator.portalURL)
            #expect(items.contains("attribute.kind = oauth-application"))
            let described = items.split(separator: "\n").filter { $0.hasPrefix("attribute.") || $0.hasPrefix("label") }
                .joined(separator: "\n")
            #expect(!described.isEmpty && !described.contains("app-secret-456"))
            let token = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator)
            #expect(token.status == 0 && !token.trimmedStdout.isEmpty)
            // An expired app token is requested again with the stored secret.
            emulator.expireAllTokens()
            let request = try await CLI.portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/portals/self"], emulator: emulator)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(emulator.counters().clientCredentialsGrants == 2)

            let fromEnvironment = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-app"],
                emulator: emulator, environment: ["PORTAL_AUTH_CLIENT_SECRET": "app-secret-456"])
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
            #expect(emulator.counters().clientCredentialsGrants == 3)
            _ = try await CLI.portalAuth(["logout", "--portal", emulator.portalURL], emulator: emulator)
        }
    }

    @Test func aWrongClientSecretIsRefusedNotEchoedAndNothingIsStored() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-app", "--client-secret-stdin"],
                emulator: emulator, stdin: "wrong-secret-789")
            #expect(r.status != 0)
            #expect(r.oneLineError, "\(r.stderr)")
            #expect(!r.stderr.contains("wrong-secret-789") && !r.stdout.contains("wrong-secret-789"))
            // What to do (give the client ID and secret again) is the remedy's line, naming both options.
            #expect(r.stderr.contains("--client-id portal-auth-app --client-secret-stdin"), "\(r.stderr)")
            #expect(!(try await CLI.keyringItems(server: emulator.portalURL)).contains("label"))
            let empty = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-app", "--client-secret-stdin"],
                emulator: emulator, stdin: "")
            #expect(empty.status != 0)
            #expect(empty.oneLineError, "\(empty.stderr)")
            #expect(emulator.counters().clientCredentialsGrants == 0)
        }
    }

    @Test func configFileSignInAndItsMistakes() async throws {
        try await withEmulator { emulator in
            let directory = temporaryPath("oauth-config")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            func write(_ name: String, _ json: String) throws -> String {
                let path = directory + "/" + name
                try json.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            let good = try write(
                "user.json",
                """
                {"type": "oauth-user", "portal_url": "\(emulator.portalURL)", "client_id": "portal-auth-cli",
                 "redirect_url": "http://127.0.0.1/oauth/callback", "refresh_token_expiration_minutes": 600, "timeout_seconds": 60}
                """)
            let signIn = try await CLI.portalAuth(
                ["login", "--config", good], emulator: emulator, environment: scriptedBrowser(emulator))
            #expect(signIn.status == 0, "\(signIn.stderr)")
            #expect(signIn.stdout.contains("as alice with OAuth"))

            let typo = try write(
                "typo.json",
                """
                {"type": "oauth-user", "portal_url": "\(emulator.portalURL)", "clientid": "portal-auth-cli"}
                """)
            let bad = try await CLI.portalAuth(
                ["login", "--config", typo], emulator: emulator, environment: scriptedBrowser(emulator))
            #expect(bad.status != 0)
            #expect(bad.oneLineError, "\(bad.stderr)")
            #expect(bad.stderr.contains("clientid"))

            let notJSON = try write("broken.json", "{ not json")
            let broken = try await CLI.portalAuth(["login", "--config", notJSON], emulator: emulator)
            #expect(broken.status != 0)
            #expect(broken.stderr.contains(notJSON))

            let conflicting = try await CLI.portalAuth(
                ["login", "--config", good, "--timeout", "5", "--oob"], emulator: emulator)
            #expect(conflicting.status != 0)
            #expect(
                conflicting.stderr.contains("--timeout, --oob cannot be combined with --config"),
                "\(conflicting.stderr)")

            let app = try write(
                "app.json",
                """
                {"type": "oauth-application", "portal_url": "\(emulator.portalURL)", "client_id": "portal-auth-app", "token_expiration_minutes": 30}
                """)
            let appSignIn = try await CLI.portalAuth(
                ["login", "--config", app, "--client-secret-stdin"], emulator: emulator, stdin: "app-secret-456")
            #expect(appSignIn.status == 0, "\(appSignIn.stderr)")
            #expect(emulator.counters().authorizationCodeGrants == 1)
            #expect(emulator.counters().clientCredentialsGrants == 1)
            // The failed attempts left the credential of the last good sign-in in place.
            #expect(
                try await CLI.keyringItems(server: emulator.portalURL).contains("attribute.kind = oauth-application"))
            _ = try await CLI.portalAuth(["logout", "--portal", emulator.portalURL], emulator: emulator)
        }
    }

    @Test func theShippedExampleConfigsAreValid() async throws {
        // config/oauth-user.example.json points at the emulator's default address; only its
        // shape is checked here (a sign-in needs the port).
        for name in ["oauth-user.example.json", "oauth-application.example.json"] {
            let path = RealClients.repositoryRoot + "/config/" + name
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            #expect(object["client_id"] is String, "\(name)")
            #expect((object["portal_url"] as? String)?.hasPrefix("https://") == true, "\(name)")
        }
    }

    /// 100 `portal-auth token` processes started together, with an access token inside the
    /// five-minute window: one refresh request, one new token, printed by all of them.
    @Test func concurrentTokenProcessesRefreshOnce() async throws {
        try await withEmulator(configuring: { $0.oauthAccessTokenLifetimeSeconds = 120 }) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await oauthLogin(emulator, environment: env).status == 0)
                emulator.setOAuthAccessTokenLifetime(seconds: 1800)
                emulator.resetCounters()

                let results = try await withThrowingTaskGroup(of: CLIResult.self) { group in
                    for _ in 0..<100 {
                        group.addTask { try await CLI.portalAuth(["token"], emulator: emulator, environment: env) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let failures = results.filter { $0.status != 0 }
                #expect(failures.isEmpty, "\(failures.first?.stderr ?? "")")
                let printed = Set(results.map(\.trimmedStdout))
                #expect(printed.count == 1)
                #expect(emulator.counters().refreshTokenGrants == 1)
                // The one they printed is the new, long-lived token, and it is the stored one.
                let json = try await CLI.portalAuth(
                    ["token", "--format", "json"], emulator: emulator, environment: env)
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(object["token"] as? String == printed.first)
                let expires = try #require(
                    (object["expires"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
                #expect(expires > Date().addingTimeInterval(20 * 60))
                let me = try await CLI.portalAuth(["whoami"], emulator: emulator, environment: env)
                #expect(me.stdout.contains("alice"))
                #expect(emulator.counters().refreshTokenGrants == 1)
            }
        }
    }
}
