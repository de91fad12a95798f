import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth token` answers a stored, unexpired credential before the argument parser starts
/// (its fast path); these tests hold it to printing exactly what the full command prints
/// (`PORTAL_AUTH_NO_FAST_PATH=1`), and to leaving everything else to the full command.
@Suite struct TokenFastPathTests {
    /// Runs `token` every way and expects the same status, stdout and stderr as the full path
    /// (`PORTAL_AUTH_NO_FAST_PATH=1`): `portal-auth-full` (its fast path), then the small
    /// `portal-auth` twice (the second run answers from what the first recorded, when it may);
    /// returns the last.
    @discardableResult
    func compare(
        _ arguments: [String], _ emulator: PortalEmulator, environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CLIResult {
        let full = try await CLI.portalAuth(
            arguments, emulator: emulator, environment: environment.merging(["PORTAL_AUTH_NO_FAST_PATH": "1"]) { $1 })
        var fast = full
        for run in 0..<3 {
            fast = try await CLI.portalAuth(arguments, emulator: emulator, environment: environment, full: run == 0)
            let which = "\(arguments) (\(run == 0 ? "portal-auth-full" : "portal-auth, run \(run)"))"
            #expect(
                fast.status == full.status,
                "\(which): status \(fast.status) vs \(full.status): \(fast.stderr) | \(full.stderr)",
                sourceLocation: sourceLocation)
            #expect(
                fast.stdout == full.stdout, "\(which): stdout\n\(fast.stdout)\nvs\n\(full.stdout)",
                sourceLocation: sourceLocation)
            #expect(
                fast.stderr == full.stderr, "\(which): stderr\n\(fast.stderr)\nvs\n\(full.stderr)",
                sourceLocation: sourceLocation)
        }
        return fast
    }

    /// Every way of writing the options the fast path takes, for one URL.
    static func commandLines(_ url: String) -> [[String]] {
        [
            ["token", url], ["token", url, "--format", "plain"], ["token", "--format=json", url],
            ["token", url, "--format", "header"], ["token", "--store", "keyring", url, "--format", "env"],
            ["token", "--format", "json", "--store=keyring", url], ["token", url, "--format=gdal"],
        ]
    }

    @Test func everyFormatPrintsWhatTheFullCommandPrints() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment

                // A token sign-in (referer portal-auth), pregenerated tokens with a referer that needs
                // shell quoting, without an expiry, inside the renewal window, and expired (stored
                // valid, then its stored expiry moved to 1970: no waiting for the clock).
                #expect(try await login(emulator, environment: env).status == 0)
                let token = emulator.issueToken(username: "alice", lifetimeSeconds: 3600)
                let base = emulator.baseURL
                for (path, extra) in [
                    ("/quoted", ["--expires-in", "3600", "--referer", "it's https://app.example/"]), ("/forever", []),
                    ("/soon", ["--expires-in", "290"]), ("/expired", ["--expires-in", "3600"]),
                ] {
                    let r = try await CLI.portalAuth(
                        ["login", "--url", base + path, "--token-stdin", "--unchecked"] + extra, emulator: emulator,
                        stdin: token,
                        environment: env)
                    #expect(r.status == 0, "\(path): \(r.stderr)")
                }
                try await expireStoredToken(base + "/expired", environment: env)
                let expired = try await CLI.portalAuth(
                    ["token", base + "/expired"], emulator: emulator, environment: env)
                #expect(expired.status == 3 && expired.stderr.contains("expired"), "\(expired.stderr)")

                // Answered (by the fast path, or for /soon by the full command after it declined).
                for url in [
                    emulator.portalURL, emulator.portalURL + "/sharing/rest/community/self", base + "/quoted",
                    base + "/quoted/", base + "/forever/a/b", base + "/soon",
                ] {
                    for arguments in Self.commandLines(url) {
                        let r = try await compare(arguments, emulator, environment: env)
                        #expect(r.status == 0 && !r.stdout.isEmpty, "\(arguments): \(r.stderr)")
                    }
                }
                let quoted = try await CLI.portalAuth(
                    ["token", base + "/quoted", "--format", "env"], emulator: emulator, environment: env)
                #expect(quoted.stdout.contains("export PORTAL_AUTH_REFERER='it'\\''s https://app.example/'"))
                let forever = try await CLI.portalAuth(
                    ["token", base + "/forever", "--format", "json"], emulator: emulator, environment: env)
                #expect(forever.stdout.contains("\"expires\""), "\(forever.stdout)")

                // Refused the same way: expired, nothing stored, not a URL, options the parser refuses.
                for arguments in [
                    ["token", base + "/expired"], ["token", base + "/expired", "--format", "json"],
                    ["token", base + "/nothing"],
                    ["token", "not-a-url"], ["token", emulator.portalURL, "--format", "xml"],
                    ["token", emulator.portalURL, "--format"],
                    ["token", emulator.portalURL, "--bogus"], ["token", emulator.portalURL, emulator.portalURL],
                    ["token", "--store", "drawer", emulator.portalURL],
                ] {
                    let r = try await compare(arguments, emulator, environment: env)
                    #expect(r.status != 0 && r.stdout.isEmpty, "\(arguments): \(r.stdout)")
                }
                // Command lines the fast path leaves to the full command, whatever it makes of them.
                for arguments in [
                    ["token", "--cacert", emulator.caCertificatePath, emulator.portalURL],
                    ["token", "--", emulator.portalURL],
                    ["token", "--format", "json", "--format", "env", emulator.portalURL],
                    ["token", "--store", "keyring", "--store", "file", emulator.portalURL],
                ] {
                    try await compare(arguments, emulator, environment: env)
                }
                // -v logs to stderr (with timestamps, so only stdout is compared).
                let verbose = try await CLI.portalAuth(
                    ["token", "-v", emulator.portalURL], emulator: emulator, environment: env)
                let quiet = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                #expect(verbose.status == 0 && verbose.stdout == quiet.stdout, "\(verbose.stderr)")
            }
        }
    }

    @Test func theFileStoreToo() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory("fast-path-store") { folder in
                let path = folder + "/store/credentials.json"
                let env = ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": path]
                #expect(try await login(emulator, environment: env).status == 0)
                for arguments in Self.commandLines(emulator.portalURL).filter({
                    !$0.contains { $0.contains("keyring") }
                }) + [
                    ["token", "--store", "file", emulator.portalURL]
                ] {
                    let r = try await compare(arguments, emulator, environment: env)
                    #expect(r.status == 0 && !r.stdout.isEmpty, "\(arguments): \(r.stderr)")
                }
            }
        }
    }

    /// The shell lines that sign in to https://locked.invalid/portal in a private keyring, then lock
    /// its default collection.
    static let signInAndLock = #"""
        printf %s tok-123 | "$PA" login --url https://locked.invalid/portal --token-stdin --unchecked --expires-in 3600 >/dev/null
        C=$(gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets --method org.freedesktop.Secret.Service.ReadAlias default | grep -o "/org/freedesktop/secrets/collection/[A-Za-z0-9_]*")
        gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets --method org.freedesktop.Secret.Service.Lock "[\"$C\"]" >/dev/null

        """#

    /// A collection locked after sign-in: reported as the full command reports it, and the fast
    /// path's failed read is not made again (on a desktop, each read of a locked item asks to unlock).
    @Test func aLockedKeyringIsReportedAfterOneRead() async throws {
        let r = try await CLI.inPrivateKeyring(
            Self.signInAndLock + #"""
                for format in plain json; do
                  echo "== fast $format" >&2
                  timeout 30 "$PA" token https://locked.invalid/portal --format $format; echo "fast $format=$?"
                  echo "== full $format" >&2
                  PORTAL_AUTH_NO_FAST_PATH=1 timeout 30 "$PA" token https://locked.invalid/portal --format $format; echo "full $format=$?"
                done
                echo "== end" >&2
                """#)
        for format in ["plain", "json"] {
            #expect(
                r.stdout.contains("fast \(format)=5\n") && r.stdout.contains("full \(format)=5\n"),
                "\(r.stdout) \(r.stderr)")
            func segment(_ from: String, _ to: String) -> Substring {
                guard let start = r.stderr.range(of: from),
                    let end = r.stderr.range(of: to, range: start.upperBound..<r.stderr.endIndex)
                else { return "" }
                return r.stderr[start.upperBound..<end.lowerBound]
            }
            let fast = segment("== fast \(format)", "== full \(format)")
            let full = segment("== full \(format)", format == "plain" ? "== fast json" : "== end")
            let errors = { (text: Substring) in text.split(separator: "\n").filter { $0.hasPrefix("portal-auth: ") } }
            #expect(errors(fast) == errors(full) && errors(fast).count == 1, "\(r.stderr)")
            #expect(errors(fast).first?.contains("the keyring's default collection is locked") == true)
            // Where an unlock prompt is tried (gcr-prompter, failing without a display), no more often than by the full command.
            #expect(
                fast.components(separatedBy: "gcr-prompter").count
                    <= full.components(separatedBy: "gcr-prompter").count, "\(r.stderr)")
        }
    }

    /// A locked keyring where nothing matches the URL: every run says it is locked, the second too,
    /// whose candidate contexts the first run looked up. (A miss in a locked keyring is not noted in
    /// the item index either; gnome-keyring would still report the lock through the API key check,
    /// so that rule is for services that hide a locked collection's items.)
    @Test func aMissInALockedKeyringIsReportedAsLockedEveryTime() async throws {
        let r = try await CLI.inPrivateKeyring(
            Self.signInAndLock + #"""
                for run in 1 2; do
                  timeout 30 "$PA" token https://elsewhere.invalid/portal/sharing/rest/x/y; echo "run $run=$?"
                done
                """#)
        #expect(r.stdout.contains("run 1=5\n") && r.stdout.contains("run 2=5\n"), "\(r.stdout) \(r.stderr)")
        let locked = r.stderr.components(separatedBy: "the keyring's default collection is locked")
        #expect(locked.count == 3, "\(r.stderr)")
    }

    /// An OAuth access token inside the five-minute renewal window is refreshed, not printed as it is.
    @Test func aTokenInsideTheRenewalWindowIsRefreshed() async throws {
        try await withEmulator(configuring: { $0.oauthAccessTokenLifetimeSeconds = 120 }) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await oauthLogin(emulator, environment: env).status == 0)
                let stored = try await CLI.run(
                    "/usr/bin/secret-tool",
                    ["lookup", "application", "portal-auth", "store", "arcgis", "server", emulator.portalURL],
                    environment: env)
                let envelope = try #require(
                    try JSONSerialization.jsonObject(with: Data(stored.stdout.utf8)) as? [String: Any])
                let old = try #require(
                    ((envelope["credential"] as? [String: Any])?["tokenInfo"] as? [String: Any])?["accessToken"]
                        as? String)
                emulator.setOAuthAccessTokenLifetime(seconds: 1800)
                emulator.resetCounters()

                let json = try await CLI.portalAuth(
                    ["token", emulator.portalURL, "--format", "json"], emulator: emulator, environment: env)
                #expect(json.status == 0, "\(json.stderr)")
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                let renewed = try #require(object["token"] as? String)
                #expect(renewed != old)
                #expect(emulator.counters().refreshTokenGrants == 1)
                // The renewed token is stored; now the fast path prints it, and nothing is refreshed again.
                let plain = try await compare(["token", emulator.portalURL], emulator, environment: env)
                #expect(plain.trimmedStdout == renewed)
                try await compare(["token", emulator.portalURL, "--format", "json"], emulator, environment: env)
                #expect(emulator.counters().refreshTokenGrants == 1)
            }
        }
    }
}
