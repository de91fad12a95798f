import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The CLI's first hour (issue #24): global options anywhere, no silent waits, mistakes answered.
@Suite struct FirstHourCLITests {
    /// A subcommand with arguments that end without a server or a credential (a closed port,
    /// the memory store).
    struct Invocation: Sendable, CustomTestStringConvertible {
        var command: String
        var arguments: [String]
        var testDescription: String { command }
    }

    static let closedPortal = "https://127.0.0.1:9/portal"

    static let invocations = [
        Invocation(command: "login", arguments: []),
        Invocation(command: "token", arguments: [closedPortal]),
        Invocation(command: "exec", arguments: [closedPortal, "--", "true"]),
        Invocation(command: "request", arguments: [closedPortal + "/sharing/rest/community/self"]),
        Invocation(command: "whoami", arguments: []),
        Invocation(command: "status", arguments: []),
        Invocation(command: "logout", arguments: []),
        Invocation(command: "trust", arguments: ["127.0.0.1:9"]),
        Invocation(command: "untrust", arguments: ["127.0.0.1:9"]),
        Invocation(command: "doctor", arguments: []),
    ]

    /// The global options to place: each set before the subcommand and after it.
    static let globalSets: [[String]] = [
        ["--store", "memory"], ["--store=memory"], ["-v"], ["-vv", "--store", "memory"],
    ]

    @Test(arguments: invocations) func globalOptionsGoBeforeOrAfterTheSubcommand(_ invocation: Invocation) async throws
    {
        let environment = ["PORTAL_AUTH_STORE": "memory"]
        for globals in Self.globalSets {
            let after = try await CLI.portalAuth(
                [invocation.command] + globals + invocation.arguments, emulator: nil, environment: environment)
            let before = try await CLI.portalAuth(
                globals + [invocation.command] + invocation.arguments, emulator: nil, environment: environment)
            let line = (globals + [invocation.command]).joined(separator: " ")
            #expect(!before.stderr.contains("Unknown option"), "portal-auth \(line): \(before.stderr)")
            #expect(!after.stderr.contains("Unknown option"), "\(after.stderr)")
            #expect(before.status == after.status, "portal-auth \(line): \(before.stderr) / \(after.stderr)")
            // -v logs for every command that runs (login without options stops at its usage error).
            if globals.contains(where: { $0.hasPrefix("-v") }), invocation.command != "login" {
                #expect(before.stderr.contains("credential store"), "portal-auth \(line) logged nothing")
            }
        }
    }

    @Test func cacertBeforeTheSubcommandSignsIn() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                [
                    "--cacert", emulator.caCertificatePath, "--store", "memory", "-v", "login", "--portal",
                    emulator.portalURL, "--username", "alice", "--password-stdin",
                ], emulator: nil, stdin: alicePassword, removing: ["PORTAL_AUTH_CA_BUNDLE"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("Signed in to \(emulator.portalURL) as alice"))
            // login -v logs its requests (the token service), never the password.
            #expect(r.stderr.contains("generateToken"), "\(r.stderr)")
            #expect(!r.stderr.contains(alicePassword))
        }
    }

    @Test func theTokenFastPathStillAnswersAndTakesTheStoreBeforeToken() async throws {
        try await withEmulator { emulator in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-fh-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let env = ["PORTAL_AUTH_FILE_STORE": dir.appendingPathComponent("store.json").path]
            let signIn = try await login(emulator, extra: ["--store", "file"], environment: env)
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let after = try await CLI.portalAuth(
                ["token", emulator.portalURL, "--store", "file"], emulator: emulator, environment: env)
            let before = try await CLI.portalAuth(
                ["--store", "file", "token", emulator.portalURL], emulator: emulator, environment: env)
            let verbose = try await CLI.portalAuth(
                ["-v", "--store=file", "token", emulator.portalURL], emulator: emulator, environment: env)
            #expect(after.status == 0 && before.status == 0 && verbose.status == 0, "\(verbose.stderr)")
            #expect(!after.stdout.isEmpty && before.stdout == after.stdout && verbose.stdout == after.stdout)
        }
    }

    @Test func aUsageErrorIsOneLineAndTheHelpHint() async throws {
        for (arguments, command) in [
            (["login", "--bogus"], "login "), (["--bogus"], ""), (["-v", "status", "--nope"], "status "),
            (["trust"], "trust "),
        ] {
            let r = try await CLI.portalAuth(arguments, emulator: nil)
            #expect(r.status == 2)
            let lines = r.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(r.stderr)")
            #expect(lines.first?.hasPrefix("portal-auth: ") == true && lines.first?.contains("Error:") == false)
            #expect(lines.last == "See 'portal-auth \(command)--help'.", "\(r.stderr)")
        }
        let validation = try await CLI.portalAuth(["login", "--portal", Self.closedPortal], emulator: nil)
        #expect(validation.status == 2)
        #expect(validation.stderr.split(separator: "\n").count == 2, "\(validation.stderr)")
        #expect(validation.stderr.contains("--username is required"))
    }

    @Test func logoutWithNothingToRemoveSucceedsTwice() async throws {
        for arguments in [["logout"], ["logout", "--portal", Self.closedPortal], ["logout", "--all"]] {
            let r = try await CLI.portalAuth(arguments + ["--store", "memory"], emulator: nil)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(r.stdout.contains("nothing to remove") || r.stdout.contains("Removed 0 credentials"), "\(r.stdout)")
        }
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await login(emulator, environment: env).status == 0)
                let first = try await CLI.portalAuth(["logout"], emulator: emulator, environment: env)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("Signed out of \(emulator.portalURL)"))
                let second = try await CLI.portalAuth(["logout"], emulator: emulator, environment: env)
                #expect(second.status == 0, "\(second.stderr)")
                #expect(second.stdout.contains("No portal is signed in"), "\(second.stdout)")
            }
        }
    }

    @Test func aPortalURLCopiedFromTheBrowserIsReducedToThePortal() async throws {
        try await withEmulator { emulator in
            for suffix in [
                "/home", "/home/item.html?id=0123456789abcdef", "/apps/mapviewer/index.html?webmap=1", "/sharing",
                "/sharing/rest", "/portaladmin",
            ] {
                let r = try await CLI.portalAuth(
                    [
                        "login", "--store", "memory", "--portal", emulator.portalURL + suffix, "--username", "alice",
                        "--password-stdin",
                    ], emulator: emulator, stdin: alicePassword)
                #expect(r.status == 0, "\(suffix): \(r.stderr)")
                #expect(r.stdout.contains("Signed in to \(emulator.portalURL) as alice"), "\(suffix): \(r.stdout)")
                #expect(
                    r.stderr.contains("note:") && r.stderr.contains("signing in to the portal \(emulator.portalURL)"))
            }
        }
    }

    @Test func aServerThatIsNotArcGISSaysSoWithTheScheme() async throws {
        try await withEmulator { emulator in
            let root = try #require(URL(string: emulator.portalURL)).deletingLastPathComponent().absoluteString
            let notAPortal = root + "no-such-portal"
            let r = try await CLI.portalAuth(
                ["login", "--store", "memory", "--portal", notAPortal, "--username", "alice", "--password-stdin"],
                emulator: emulator, stdin: alicePassword)
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.oneLineError, "\(r.stderr)")
            #expect(r.stderr.contains("https://"), "\(r.stderr)")
            #expect(r.stderr.contains("answered HTTP 404"), "\(r.stderr)")
            #expect(r.stderr.contains("not an ArcGIS portal or server"), "\(r.stderr)")
        }
    }

    @Test func aRefusedConnectionIsNamedAsSuch() async throws {
        let r = try await CLI.portalAuth(
            ["login", "--store", "memory", "--portal", Self.closedPortal, "--username", "alice", "--password-stdin"],
            emulator: nil, stdin: alicePassword)
        #expect(r.status == 4, "\(r.stderr)")
        #expect(r.oneLineError, "\(r.stderr)")
        #expect(r.stderr.contains("could not connect to 127.0.0.1:9 (connection refused)"), "\(r.stderr)")
    }

    @Test func aCAFileThatIsNotPEMIsNamedAsSuch() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pa-ca-\(UUID().uuidString).der").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The start of a DER certificate (SEQUENCE, long form length).
        _ = FileManager.default.createFile(atPath: path, contents: Data([0x30, 0x82, 0x03, 0x0B, 0x30, 0x82, 0x01]))
        for arguments in [
            [
                "--cacert", path, "login", "--store", "memory", "--portal", Self.closedPortal, "--username", "a",
                "--password-stdin",
            ],
            ["trust", "--cacert", path, "--store", "memory", "127.0.0.1:9"],
        ] {
            let r = try await CLI.portalAuth(arguments, emulator: nil, stdin: "pw")
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.oneLineError, "\(r.stderr)")
            #expect(r.stderr.contains("the CA bundle \(path) is not a PEM file"), "\(r.stderr)")
            #expect(r.stderr.contains("DER"), "\(r.stderr)")
        }
        let doctor = try await CLI.portalAuth(["doctor", "--store", "memory", "--cacert", path], emulator: nil)
        #expect(doctor.status == 5, "\(doctor.stdout)")
        #expect(
            doctor.stdout.contains("[failed] CA bundle: the CA bundle \(path) is not a PEM file"), "\(doctor.stdout)")
    }

    @Test func aConfigurationFileIsStrictJSONWithLineAndColumn() async throws {
        let cases: [(String, String)] = [
            (
                "{\n  \"type\": \"oauth-user\",\n  \"portal_url\": \"https://host/portal\",\n  \"client_id\": \"x\",\n}\n",
                "line 5, column 1): a trailing comma before }"
            ),
            ("{\n  // the app\n  \"type\": \"oauth-user\"\n}\n", "line 2, column 3): a comment"),
            (
                "{\"client_id\": \"a\",\n \"client_id\": \"b\"}",
                "line 2, column 2): the key \"client_id\" appears twice"
            ),
            ("[1, 2,]", "line 1, column 7): a trailing comma before ]"),
        ]
        for (text, expected) in cases {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("pa-\(UUID().uuidString).json")
                .path
            defer { try? FileManager.default.removeItem(atPath: path) }
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            let r = try await CLI.portalAuth(["login", "--store", "memory", "--config", path], emulator: nil)
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.oneLineError, "\(r.stderr)")
            #expect(r.stderr.contains("\(path) is not valid JSON (\(expected)"), "\(r.stderr)")
        }
    }

    @Test func aBrowserSignInWithNoDisplayPrintsTheURLAndWhatToDo() async throws {
        try await withEmulator { emulator in
            let r = try await CLI.portalAuth(
                [
                    "login", "--store", "memory", "--portal", emulator.portalURL, "--client-id", "portal-auth-cli",
                    "--oob",
                ],
                emulator: emulator, stdin: "", removing: ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"])
            // Nothing pasted (stdin is empty): abandoned at once, not after a wait for a browser.
            #expect(r.status == 3, "\(r.stderr)")
            #expect(r.stderr.contains("there is no display (DISPLAY and WAYLAND_DISPLAY are not set)"), "\(r.stderr)")
            #expect(r.stderr.contains(emulator.portalURL + "/sharing/rest/oauth2/authorize"), "\(r.stderr)")
            #expect(!r.stderr.contains("Opened the sign-in page"))

            let loopback = try await CLI.portalAuth(
                [
                    "login", "--store", "memory", "--portal", emulator.portalURL, "--client-id", "portal-auth-cli",
                    "--timeout", "1",
                ], emulator: emulator, stdin: "", removing: ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"])
            #expect(loopback.status == 4, "\(loopback.stderr)")  // the sign-in timed out after 1 s
            #expect(loopback.stderr.contains("ssh -L "), "\(loopback.stderr)")
            #expect(loopback.stderr.contains("--oob"), "\(loopback.stderr)")
        }
    }

    @Test func aSlowServerIsShownOnATerminalOnly() async throws {
        try await withEmulator { emulator in
            emulator.inject(Fault(kind: .latency, pathContains: "generateToken", count: 2, milliseconds: 2500))
            let place = try #require(URL(string: emulator.portalURL)).host! + ":"
            // On a terminal (script(1) gives the command one): the host and the seconds.
            let command = [
                CLI.portalAuth, "login", "--store", "memory", "--portal", emulator.portalURL, "--username",
                "alice", "--password-stdin",
            ].map { "'" + $0 + "'" }.joined(separator: " ")
            let onTerminal = try await CLI.run(
                "/usr/bin/script", ["-qec", "printf %s '\(alicePassword)' | \(command)", "/dev/null"],
                environment: ["PORTAL_AUTH_CA_BUNDLE": emulator.caCertificatePath])
            #expect(onTerminal.status == 0, "\(onTerminal.stdout)")
            #expect(onTerminal.stdout.contains("portal-auth: waiting for \(place)"), "\(onTerminal.stdout)")
            #expect(onTerminal.stdout.contains(" s; Ctrl-C to cancel)"), "\(onTerminal.stdout)")
            // Not on a pipe.
            let piped = try await login(emulator, extra: ["--store", "memory"])
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(!piped.stderr.contains("waiting for"), "\(piped.stderr)")
        }
    }
}
