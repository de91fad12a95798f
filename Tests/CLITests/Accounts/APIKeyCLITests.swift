import Foundation
import PortalAuth
import PortalEmulator
import TestSupport
import Testing

@testable import portal_auth

/// `login --api-key-stdin` and what token, exec, request, whoami and status do with the key, in a
/// private keyring against portal-emulator.
@Suite struct APIKeyCLITests {
    static let first = EmulatorAPIKey(
        key: "AAPTcliFirstKeyEveryPrivilege00000000000001xxxxxxxxx", name: "first", lifetimeSeconds: 86_400,
        privileges: EmulatorAPIKey.allPrivileges)
    static let second = EmulatorAPIKey(
        key: "AAPTcliSecondKeyEveryPrivilege0000000000002xxxxxxxxx", name: "second", lifetimeSeconds: 86_400,
        privileges: EmulatorAPIKey.allPrivileges)

    /// An emulator with both keys and a private keyring; `body` gets a runner of portal-auth.
    func withKeys(_ body: (PortalEmulator, [String: String]) async throws -> Void) async throws {
        try await withEmulator(configuring: { $0.apiKeys = [Self.first, Self.second] }) { emulator in
            try await withPrivateKeyring { keyring in try await body(emulator, keyring.environment) }
        }
    }

    func storeKey(
        _ key: String, _ emulator: PortalEmulator, _ env: [String: String], extra: [String] = []
    ) async throws -> CLIResult {
        try await CLI.portalAuth(
            ["login", "--api-key-stdin", "--portal", emulator.portalURL] + extra, emulator: emulator,
            stdin: key + "\n", environment: env)
    }

    func run(_ arguments: [String], _ emulator: PortalEmulator, _ env: [String: String]) async throws -> CLIResult {
        try await CLI.portalAuth(arguments, emulator: emulator, environment: env)
    }

    @Test func tokenRequestExecAndWhoamiUseTheKeyWithinItsScopeOnly() async throws {
        try await withKeys { emulator, env in
            let stored = try await storeKey(Self.first.key, emulator, env, extra: ["--expires-in", "864000"])
            #expect(stored.status == 0, "\(stored.stderr)")
            #expect(!stored.stdout.contains(Self.first.key) && !stored.stderr.contains(Self.first.key))
            let geocode = try #require(emulator.geocodeServiceURL)
            #expect(stored.stdout.contains(geocode))
            // token for the geocoder prints the key; stderr is not a terminal: no expiry warning.
            let token = try await run(["token", geocode], emulator, env)
            #expect(token.status == 0, "\(token.stderr)")
            #expect(token.stdout == Self.first.key + "\n")
            #expect(token.stderr.isEmpty)
            // request sends it to the geocoder.
            let found = try await run(
                ["request", geocode + "/findAddressCandidates?SingleLine=380%20New%20York%20St"], emulator, env)
            #expect(found.status == 0, "\(found.stderr)")
            #expect(found.stdout.contains("\"score\""))
            // exec gives it to the command.
            let exec = try await run(
                ["exec", geocode, "--", "sh", "-c", "test \"$PORTAL_AUTH_TOKEN\" = \(Self.first.key) && echo same"],
                emulator, env)
            #expect(exec.stdout.contains("same"), "\(exec.stderr)")
            // whoami: an API key, no user.
            let who = try await run(["whoami", "--portal", emulator.portalURL], emulator, env)
            #expect(who.status == 0, "\(who.stderr)")
            #expect(who.stdout.contains("an API key (no user)"))
            #expect(!who.stdout.contains(Self.first.key))
            // Outside its scope: no token, and the key never reaches another origin.
            for url in [emulator.standaloneServerURL, emulator.claimantServerURL + "/rest/services"] {
                let none = try await run(["token", url], emulator, env)
                #expect(none.status == 3, "\(url): \(none.stdout) \(none.stderr)")
                #expect(!none.stdout.contains(Self.first.key))
            }
            let portalOrigin = "https://" + URL(string: emulator.portalURL)!.host()! + ":\(emulator.port)"
            let locationOrigin = "https://" + URL(string: geocode)!.host()! + ":\(emulator.locationServicesPort!)"
            #expect(Set(emulator.counters().apiKeyRequestsByOrigin.keys) == [portalOrigin, locationOrigin])
            #expect(emulator.counters().tokensSentToClaimant == 0)
        }
    }

    @Test func statusShowsTheKeyWithItsExpiryAndScopeAndNeverTheKey() async throws {
        try await withKeys { emulator, env in
            let stored = try await storeKey(
                Self.first.key, emulator, env, extra: ["--expires", "2099-01-31", "--host", "services9.example.com"])
            #expect(stored.status == 0, "\(stored.stderr)")
            let status = try await run(["status"], emulator, env)
            let row = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("api-key") })
            // The scope list is shortened in its middle to keep within 120 columns (stdout is not a
            // terminal; issue #38, item 10): the portal and the last host show, --json has it all.
            #expect(row.contains(emulator.portalURL.prefix(30)) && row.contains("services9.example.com:443)"))
            #expect(row.contains("2099-01-31T23:59:59Z"))
            #expect(status.stdout.split(separator: "\n").allSatisfy { $0.count <= 120 }, "\(status.stdout)")
            var narrow = env
            narrow["COLUMNS"] = "80"
            let fitted = try await CLI.portalAuth(["status"], emulator: emulator, environment: narrow)
            #expect(
                fitted.stdout == """
                    KIND     SERVER                              USER  EXPIRES               STORE
                    api-key  https://127.0.0.1…example.com:443)  -     2099-01-31T23:59:59Z  keyring

                    """, "\(fitted.stdout)")
            let json = try await run(["status", "--json"], emulator, env)
            #expect(json.stdout.contains("\"server\" : \"\(emulator.portalURL)\""), "\(json.stdout)")
            #expect(json.stdout.contains("\"scope\""))
            #expect(json.stdout.contains(try #require(emulator.geocodeServiceURL)), "\(json.stdout)")
            #expect(json.stdout.contains("services9.example.com"), "\(json.stdout)")
            // A key is not rotated by itself: it works until it ends.
            #expect(json.stdout.contains("\"renewableUntil\" : \"2099-01-31T23:59:59Z\""), "\(json.stdout)")
            #expect(!status.stdout.contains(Self.first.key) && !json.stdout.contains(Self.first.key))
        }
    }

    @Test func whoamiAndLogoutFindThePortalOfTheOnlyKey() async throws {
        try await withKeys { emulator, env in
            #expect(try await storeKey(Self.first.key, emulator, env).status == 0)
            let who = try await run(["whoami", "--json"], emulator, env)
            #expect(who.status == 0, "\(who.stderr)")
            #expect(who.stdout.contains("\"credential\" : \"api-key\""), "\(who.stdout)")
            #expect(who.stdout.contains("\"username\" : null"))
            let out = try await run(["logout"], emulator, env)
            #expect(out.status == 0, "\(out.stderr)")
            #expect(out.stdout.contains("removed 1 credential"), "\(out.stdout)")
            #expect(try await !run(["status"], emulator, env).stdout.contains("api-key"))
        }
    }

    @Test func aUserCredentialForThePortalWinsOverTheKey() async throws {
        try await withKeys { emulator, env in
            #expect(try await storeKey(Self.first.key, emulator, env).status == 0)
            #expect(try await login(emulator, environment: env).status == 0)
            let portalToken = try await run(["token", emulator.portalURL], emulator, env)
            #expect(portalToken.status == 0, "\(portalToken.stderr)")
            #expect(portalToken.stdout != Self.first.key + "\n")
            let who = try await run(["whoami", "--portal", emulator.portalURL], emulator, env)
            #expect(who.stdout.hasPrefix("alice"), "\(who.stdout) \(who.stderr)")
            // The geocoder has no user credential: the key.
            let geocode = try await run(["token", try #require(emulator.geocodeServiceURL)], emulator, env)
            #expect(geocode.stdout == Self.first.key + "\n")
        }
    }

    @Test func rotationReplacesTheKeyAndTheInvalidatedKeyIsAnErrorThatSaysSo() async throws {
        try await withKeys { emulator, env in
            let geocode = try #require(emulator.geocodeServiceURL)
            let query = geocode + "/findAddressCandidates?SingleLine=x"
            #expect(try await storeKey(Self.first.key, emulator, env).status == 0)
            // The second key replaces the first in one item; then the first is invalidated.
            #expect(try await storeKey(Self.second.key, emulator, env).status == 0)
            let status = try await run(["status"], emulator, env)
            #expect(status.stdout.split(separator: "\n").filter { $0.hasPrefix("api-key") }.count == 1)
            #expect(try await run(["token", geocode], emulator, env).stdout == Self.second.key + "\n")
            _ = emulator.invalidateAPIKey(Self.first.key)
            #expect(try await run(["request", query], emulator, env).status == 0)
            // The second key invalidated too: the 498 is an error that says so and how to store a new key.
            _ = emulator.invalidateAPIKey(Self.second.key)
            let refused = try await run(["request", query], emulator, env)
            #expect(refused.status == 3)
            #expect(refused.oneLineError, "\(refused.stderr)")
            #expect(refused.stderr.contains("expired or was invalidated"))
            #expect(refused.stderr.contains("portal-auth login --api-key-stdin --portal \(emulator.portalURL)"))
            #expect(!refused.stderr.contains(Self.second.key))
        }
    }

    @Test func theEmulatorsClockPastTheKeysExpiryGivesTheSameError() async throws {
        try await withKeys { emulator, env in
            #expect(try await storeKey(Self.first.key, emulator, env).status == 0)
            emulator.clock.advance(by: .seconds(86_401))
            let query = try #require(emulator.geocodeServiceURL) + "/findAddressCandidates?SingleLine=x"
            let refused = try await run(["request", query], emulator, env)
            #expect(refused.status == 3)
            #expect(refused.stderr.contains("has expired or was invalidated"), "\(refused.stderr)")
        }
    }

    @Test func theKeyIsReadFromStdinOnly() async throws {
        try await withKeys { emulator, env in
            // No option takes the key on the command line.
            let argv = try await run(
                ["login", "--api-key", Self.first.key, "--portal", emulator.portalURL], emulator, env)
            #expect(argv.status != 0)
            let status = try await run(["status"], emulator, env)
            #expect(!status.stdout.contains("api-key"))
            for bad in ["", "\n", "AAPT\u{1}control", "AAPT two"] {
                let r = try await storeKey(bad, emulator, env)
                #expect(r.status != 0, "\(bad.debugDescription)")
                #expect(r.oneLineError, "\(r.stderr)")
            }
            let combined = try await run(
                ["login", "--api-key-stdin", "--portal", emulator.portalURL, "--username", "alice"], emulator, env)
            #expect(combined.status == 2 || combined.status == 64)
            #expect(combined.stderr.contains("cannot be combined with --api-key-stdin"))
            let noPortal = try await run(["login", "--api-key-stdin"], emulator, env)
            #expect(noPortal.stderr.contains("--api-key-stdin needs --portal"))
            let http = try await run(
                ["login", "--api-key-stdin", "--portal", "http://127.0.0.1:1/portal"], emulator, env)
            #expect(http.status == 4, "\(http.stderr)")
            #expect(try await !run(["status"], emulator, env).stdout.contains("api-key"))
        }
    }

    @Test func tokenWarnsOnATerminalWhenTheKeyExpiresWithinThirtyDays() async throws {
        try await withKeys { emulator, env in
            let geocode = try #require(emulator.geocodeServiceURL)
            var terminal = env
            terminal["PORTAL_AUTH_CA_BUNDLE"] = emulator.caCertificatePath
            // script(1) runs the command on a pseudo-terminal: its stderr is a terminal.
            func onTerminal() async throws -> CLIResult {
                try await CLI.run(
                    "/usr/bin/script", ["-qec", "'\(CLI.portalAuth)' token '\(geocode)'", "/dev/null"],
                    environment: terminal)
            }
            #expect(try await storeKey(Self.first.key, emulator, env, extra: ["--expires-in", "5184000"]).status == 0)
            let later = try await onTerminal()
            #expect(later.stdout.contains(Self.first.key), "\(later.stdout) \(later.stderr)")
            #expect(!later.stdout.contains("warning"))
            #expect(try await storeKey(Self.first.key, emulator, env, extra: ["--expires-in", "864000"]).status == 0)
            let soon = try await onTerminal()
            #expect(soon.stdout.contains("portal-auth: warning: the API key for \(emulator.portalURL) expires"))
            #expect(soon.stdout.contains("(in 9 days)") || soon.stdout.contains("(in 10 days)"))
            // Not on a terminal: the token alone.
            let piped = try await run(["token", geocode], emulator, env)
            #expect(piped.stdout == Self.first.key + "\n" && piped.stderr.isEmpty)
        }
    }

    @Test func expiryDatesAndDurations() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(APIKeyLogin.date("2027-01-31")?.iso8601 == "2027-01-31T23:59:59Z")
        #expect(APIKeyLogin.date("2027-01-31T12:00:00Z")?.iso8601 == "2027-01-31T12:00:00Z")
        #expect(APIKeyLogin.date("next week") == nil)
        #expect(try APIKeyLogin.expiry(date: nil, seconds: 60, now: now) == now.addingTimeInterval(60))
        #expect(try APIKeyLogin.expiry(date: nil, seconds: nil, now: now) == nil)
        #expect(throws: PortalAuthError.self) { try APIKeyLogin.expiry(date: "2001-01-01", seconds: nil, now: now) }
    }
}
