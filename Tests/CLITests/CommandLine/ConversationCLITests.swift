import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The CLI's conversation (issue #29, and #28's exec environment and terminal output): every test
/// runs portal-auth exactly as a user types it, in bash where the user would be in a shell.
@Suite struct ConversationCLITests {
    /// A command line with a mistake, and what the one-line answer must say.
    struct Mistake: Sendable, CustomTestStringConvertible {
        var line: [String]
        var says: [String]
        var testDescription: String { line.joined(separator: " ") }
    }

    static let portal = "https://127.0.0.1:9/portal"

    static let mistakes = [
        Mistake(line: ["logn"], says: ["unknown command 'logn'", "did you mean 'portal-auth login'?"]),
        Mistake(line: ["tokne", portal], says: ["unknown command 'tokne'", "'portal-auth token'"]),
        Mistake(line: ["help", "logn"], says: ["unknown command 'logn'", "'portal-auth login'"]),
        Mistake(line: ["-v", "whomai"], says: ["unknown command 'whomai'", "'portal-auth whoami'"]),
        Mistake(line: ["frobnicate"], says: ["unknown command 'frobnicate'", "login, token, exec"]),
        Mistake(line: ["--verison"], says: ["unknown option '--verison'", "did you mean '--version'?"]),
        Mistake(
            line: ["login", "--portl", portal, "--username", "alice"],
            says: ["unknown option '--portl' for login", "did you mean '--portal'?"]),
        Mistake(
            line: ["login", "--portal", portal, "--usernme", "alice"],
            says: ["unknown option '--usernme' for login", "did you mean '--username'?"]),
        Mistake(line: ["login", "--portal", portal, "--user", "alice"], says: ["'--user'", "'--username'"]),
        Mistake(line: ["login", "--portal", portal, "-u", "alice"], says: ["'-u'", "'--username'"]),
        Mistake(
            line: ["login", "--portal", portal, "--username", "alice", "--password", "secret"],
            says: ["unknown option '--password'", "never taken from the command line", "--password-stdin"]),
        Mistake(
            line: ["login", "--url", portal, "--token", "abc"],
            says: ["unknown option '--token'", "never taken from the command line", "--token-stdin"]),
        Mistake(
            line: ["login", "--portal", portal, "--client-id", "app", "--client-secret", "s"],
            says: ["unknown option '--client-secret'", "--client-secret-stdin"]),
        Mistake(
            line: ["login", "--portal", portal, "--secret", "s"], says: ["'--secret'", "'--client-secret-stdin'"]),
        Mistake(
            line: ["login", "--portal", portal, "--api-key", "k"],
            says: ["unknown option '--api-key'", "never taken from the command line", "--api-key-stdin"]),
        Mistake(line: ["whoami", "--jsn"], says: ["unknown option '--jsn' for whoami", "did you mean '--json'?"]),
        Mistake(
            line: ["login", "--url", portal, "--token-stdin", "--expires-in", "3x"],
            says: ["--expires-in 3x is not a duration", "90s, 30m, 12h, 30d"]),
    ]

    @Test(arguments: mistakes) func aMistakeIsNamedInOneLineWithTheNearestWord(_ mistake: Mistake) async throws {
        let result = try await CLI.portalAuth(
            mistake.line, emulator: nil, stdin: "", environment: ["PORTAL_AUTH_STORE": "memory"])
        #expect(result.status == 2, "\(result.stderr)")
        // One line that names the mistake, then the pointer to --help every usage error ends with.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("portal-auth: "), "\(result.stderr)")
        #expect(lines.last?.hasPrefix("See 'portal-auth ") == true, "\(result.stderr)")
        for words in mistake.says { #expect(lines.first?.contains(words) == true, "\(result.stderr)") }
        #expect(!result.stdout.contains("OVERVIEW"), "no help printed instead")
    }

    @Test func withSeveralPortalsTheAdviceNamesTheCommandThatWasRun() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let localhost = use.emulator.portalURL.replacing("127.0.0.1", with: "localhost")
            let second = try await use.portalAuth(
                ["login", "--portal", localhost, "--username", "bob", "--password-stdin"], stdin: "bob-pass-456")
            #expect(second.status == 0, "\(second.stderr)")
            let whoami = try await use.bash("portal-auth whoami || echo status=$?")
            #expect(whoami.stdout.contains("status=2"))
            #expect(whoami.stderr.contains("2 portals are signed in (") && whoami.stderr.contains(localhost))
            #expect(whoami.stderr.contains("for example portal-auth whoami --portal https://"), "\(whoami.stderr)")
            let logout = try await use.bash("portal-auth logout || echo status=$?")
            #expect(logout.stdout.contains("status=2"))
            #expect(logout.stderr.contains("portal-auth logout --portal https://"), "\(logout.stderr)")
            #expect(logout.stderr.contains("portal-auth logout --all"), "\(logout.stderr)")
            #expect(!(whoami.stderr + logout.stderr).contains("portal-auth token"))
        }
    }

    @Test func whoamiDescribesAnAppSignIn() async throws {
        try await TokenUse.with { use in
            let result = try await use.bash(
                #"""
                printf %s app-secret-456 | portal-auth login --portal "$PORTAL" --client-id portal-auth-app --client-secret-stdin
                portal-auth whoami
                portal-auth whoami --json > app.json
                python3 -c 'import json; d = json.load(open("app.json")); print("json:", d["clientId"], d["appName"], d["credential"], d["username"], d["expires"] is not None)'
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("an app (no user): portal-auth app, client ID portal-auth-app"))
            #expect(result.stdout.contains("organization: "))
            #expect(result.stdout.contains("json: portal-auth-app portal-auth app oauth-application None True"))
        }
    }

    @Test func whoamiDescribesAPregeneratedToken() async throws {
        try await TokenUse.with { use in
            let result = try await use.bash(
                #"""
                printf %s made-elsewhere | portal-auth login --url "$PORTAL" --token-stdin --unchecked --expires-in 2h
                portal-auth whoami
                portal-auth whoami --json | python3 -c 'import json,sys; d = json.load(sys.stdin); print("json:", d["credential"], d["server"])'
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("a pregenerated token"))
            #expect(result.stdout.contains("server:       \(use.emulator.portalURL)"))
            #expect(result.stdout.contains("json: pregenerated-token \(use.emulator.portalURL)"))
        }
    }

    @Test func aPortalURLCopiedFromTheBrowserIsReadWhereverAPortalIsTyped() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let result = try await use.bash(
                #"""
                portal-auth whoami --portal "$PORTAL/home/content.html" | sed -n 1p
                portal-auth whoami --portal "$PORTAL/" | sed -n 1p
                portal-auth switch "$PORTAL/apps/mapviewer/index.html" alice
                ARCGIS_HOST="$PORTAL/home/index.html" ARCGIS_USER=bob ARCGIS_PASSWORD=bob-pass-456 portal-auth whoami | sed -n 1p
                portal-auth logout --portal "$PORTAL/sharing/rest/"
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 5 && lines[0].hasPrefix("alice (") && lines[1].hasPrefix("alice ("), "\(lines)")
            #expect(lines[2] == "Switched \(use.emulator.portalURL) to alice.")
            #expect(lines[3].hasPrefix("bob ("), "ARCGIS_HOST: \(lines)")
            #expect(lines[4].hasPrefix("Signed out of \(use.emulator.portalURL)"))
            let notes = result.stderr.split(separator: "\n")
            #expect(notes.count == 4, "\(result.stderr)")
            #expect(
                notes.allSatisfy { $0.contains("is a page of the portal; using the portal \(use.emulator.portalURL)") })
            #expect(notes.contains { $0.hasPrefix("portal-auth: note: ARCGIS_HOST (") })
        }
    }

    @Test func aConfigurationFilesPortalURLFromTheBrowserIsReadToo() async throws {
        try await TokenUse.with { use in
            let result = try await use.bash(
                #"""
                printf '{"type": "oauth-application", "portal_url": "%s/home/index.html", "client_id": "portal-auth-app"}' "$PORTAL" > app.json
                PORTAL_AUTH_CLIENT_SECRET=app-secret-456 portal-auth login --config app.json
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Signed in to \(use.emulator.portalURL) as app portal-auth-app"))
            #expect(result.stderr.contains("app.json: portal_url ("), "\(result.stderr)")
        }
    }

    @Test func execWithoutDoubleDashRunsTheCommandAsWritten() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let result = try await use.bash(
                #"""
                portal-auth exec "$PORTAL" sh -c 'echo "ran with $0, token ${#PORTAL_AUTH_TOKEN} long"' --version
                portal-auth exec sh -c 'echo "ran without a URL"'
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("ran with --version, token "))
            #expect(result.stdout.contains("ran without a URL"))
            #expect(!result.stdout.contains("0.1.0"), "portal-auth printed its own version")
        }
    }

    @Test func durationsTakeAUnitAndPlainNumbersKeepTheirs() async throws {
        try await TokenUse.with { use in
            let result = try await use.bash(
                #"""
                printf %s t1 | portal-auth login --url "$PORTAL" --token-stdin --unchecked --expires-in 2h
                printf %s alice-pass-123 | portal-auth login --portal "$PORTAL" --username alice --password-stdin --expiration 30m
                portal-auth request "$PORTAL/sharing/rest/portals/self" --timeout 1m | grep -c '"helperServices"'
                portal-auth status --json
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Stored a pregenerated token"))
            // 2h and 30m, as seconds and minutes would have been printed: the expiries say so.
            let lines = result.stdout.split(separator: "\n")
            let expiries = lines.compactMap { line -> Date? in
                guard let range = line.range(of: "expires ") else { return nil }
                let rest = line[range.upperBound...].prefix(20)
                return ISO8601DateFormatter().date(from: String(rest))
            }
            #expect(expiries.count == 2, "\(result.stdout)")
            if expiries.count == 2 {
                #expect(abs(expiries[0].timeIntervalSinceNow - 7200) < 120, "--expires-in 2h")
                #expect(abs(expiries[1].timeIntervalSinceNow - 1800) < 120, "--expiration 30m")
            }
            let plain = try await use.bash(
                "printf %s t2 | portal-auth login --url \"$PORTAL\" --token-stdin --unchecked --expires-in 90")
            let expiry = plain.stdout.range(of: "expires ").flatMap {
                ISO8601DateFormatter().date(from: String(plain.stdout[$0.upperBound...].prefix(20)))
            }
            #expect(expiry.map { abs($0.timeIntervalSinceNow - 90) < 60 } == true, "\(plain.stdout)")
        }
    }

    /// The README's first two blocks pasted in one go: `portal-emulator env` runs while the
    /// emulator is starting, and waits for its state file.
    @Test func theReadmesFirstBlocksWorkPastedAsOneBlock() async throws {
        let readme = try String(contentsOf: DocsExamplesTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```sh\n").dropFirst().map {
            $0.components(separatedBy: "```").first ?? ""
        }
        let start = try #require(blocks.firstIndex { $0.contains("portal-emulator --state-file emulator.json &") })
        let pasted = blocks[start] + blocks[start + 1]
        #expect(pasted.contains("eval \"$(portal-emulator env emulator.json)\""))
        try await withTemporaryDirectory("readme") { directory in
            let result = try await CLI.run(
                "/bin/bash", ["-c", "cd \"$0\"\n" + pasted + "\nstatus=$?\nkill %1\nwait\nexit $status", directory],
                environment: [
                    "PATH": CLI.binDirectory.path + ":/usr/bin:/bin", "PORTAL_AUTH_STORE": "file",
                    "PORTAL_AUTH_FILE_STORE": directory + "/credentials.json",
                ],
                removing: DocsExamplesTests.sessionVariables, timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\"expires_epoch\""), "\(result.stdout)\n\(result.stderr)")
        }
    }

    @Test func noLogLineComesBetweenTheUserAndTheAnswer() async throws {
        try await TokenUse.with { use in
            // The portal names its token service on 127.0.0.1; signed in through localhost, that
            // is another host (ignored, and said only with -v).
            let result = try await use.bash(
                #"""
                printf %s alice-pass-123 | portal-auth login --portal "${PORTAL/127.0.0.1/localhost}" --username alice --password-stdin
                portal-auth token "${PORTAL/127.0.0.1/localhost}" > /dev/null
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
    }

    @Test func anUnknownClientIDIsSaidAtOnce() async throws {
        try await TokenUse.with { use in
            let started = Date()
            let user = try await use.bash(
                #"portal-auth login --portal "$PORTAL" --client-id portal-auth-clj --no-browser || echo "status=$?""#)
            let app = try await use.bash(
                #"""
                printf %s app-secret-456 | portal-auth login --portal "$PORTAL" --client-id portal-auth-apq --client-secret-stdin || echo "status=$?"
                """#)
            #expect(Date().timeIntervalSince(started) < 60, "a sign-in waited")
            for (result, id) in [(user, "portal-auth-clj"), (app, "portal-auth-apq")] {
                #expect(result.stdout.contains("status=3"), "\(result.stdout)")
                #expect(result.oneLineError, "\(result.stderr)")
                #expect(result.stderr.contains("knows no app with the client ID \(id)"), "\(result.stderr)")
            }
            #expect(!user.stderr.contains("http://127.0.0.1"), "no sign-in URL was printed to wait on")
            #expect(use.emulator.counters().authorizeJSONRequests == 1, "the portal was asked first")
            // The emulator answers like a portal: an error at once, JSON with f=json.
            let raw = try await use.bash(
                #"curl -sS -w ' %{http_code}' "$PORTAL/sharing/rest/oauth2/authorize?client_id=nope&response_type=code&redirect_uri=urn:ietf:wg:oauth:2.0:oob&f=json""#
            )
            #expect(raw.stdout.contains("Invalid client_id") && raw.stdout.hasSuffix(" 400"), "\(raw.stdout)")
        }
    }

    @Test func execHandsOnTheTokenAndNotTheSecretsItSignedInWith() async throws {
        try await TokenUse.with { use in
            let result = try await use.bash(
                #"""
                export ARCGIS_HOST="$PORTAL" ARCGIS_USER=alice ARCGIS_PASSWORD=alice-pass-123 ARCGIS_API_KEY=unused-key
                export PORTAL_AUTH_CLIENT_SECRET=app-secret-456 ARCGIS_CLIENT=portal-auth-app ARCGIS_SECRET=app-secret-456
                portal-auth exec "$PORTAL" -- env | sort
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("PORTAL_AUTH_TOKEN="))
            for secret in ["alice-pass-123", "app-secret-456", "unused-key"] {
                #expect(!result.stdout.contains(secret), "the command saw \(secret)")
            }
            for name in ["ARCGIS_PASSWORD", "ARCGIS_SECRET", "PORTAL_AUTH_CLIENT_SECRET", "ARCGIS_API_KEY"] {
                #expect(!result.stdout.contains(name + "="), "the command got \(name)")
            }
            #expect(result.stdout.contains("ARCGIS_HOST="), "what is no secret stays")
        }
    }

    @Test func execKeepsAnAPIKeyThatIsTheTokenHandedOn() async throws {
        let key = "AAPTcliExecKeyEveryPrivilege000000000000000001xxxxxxxxx"
        try await TokenUse.with({
            $0.apiKeys = [
                EmulatorAPIKey(
                    key: key, name: "exec", lifetimeSeconds: 86_400, privileges: EmulatorAPIKey.allPrivileges)
            ]
        }) { use in
            let result = try await use.bash(
                #"""
                ARCGIS_HOST="$PORTAL" ARCGIS_API_KEY="$KEY" portal-auth exec "$PORTAL" -- sh -c '[ "$ARCGIS_API_KEY" = "$PORTAL_AUTH_TOKEN" ] && echo same'
                """#, extra: ["KEY": key])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("same"))
        }
    }

    @Test func whatAServerSaysReachesTheTerminalWithoutControlCharacters() async throws {
        let eve = EmulatorUser(
            username: "eve", password: "eve-pass-789", fullName: "Eve \u{1B}]0;owned\u{07}\u{1B}[2J\nforged: line",
            email: "eve\u{1B}[31m@example.com\u{9B}")
        try await TokenUse.with({
            $0.users.append(eve)
            $0.portalName = "Portal \u{1B}[5mblink\nforged: portal"
        }) { use in
            let result = try await use.bash(
                #"""
                printf %s eve-pass-789 | portal-auth login --portal "$PORTAL" --username eve --password-stdin
                portal-auth whoami
                portal-auth whoami --json
                portal-auth status
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout.contains("eve (Eve  ]0;owned  [2J forged: line) <eve [31m@example.com >"),
                "\(result.stdout)")
            #expect(result.stdout.contains("Portal  [5mblink forged: portal"))
            // A line feed in a single-line field does not start a line of its own.
            #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("forged") }, "\(result.stdout)")
            for control in ["\u{1B}", "\u{07}", "\u{9B}"] {
                #expect(!result.stdout.contains(control) && !result.stderr.contains(control))
            }
        }
    }
}
