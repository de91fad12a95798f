import Foundation
import PortalEmulator
import TestSupport
import Testing

@testable import portal_auth

/// Named accounts: a second user on one portal is added beside the first, `switch` changes the
/// active one for every process, `--account` uses another for one command.
@Suite struct AccountsCLITests {
    static let bobPassword = "bob-pass-456"

    static func loginBob(_ emulator: PortalEmulator, environment: [String: String]) async throws -> CLIResult {
        try await CLI.portalAuth(
            ["login", "--portal", emulator.portalURL, "--username", "bob", "--password-stdin"],
            emulator: emulator, stdin: bobPassword, environment: environment)
    }

    /// alice, then bob, signed in; returns their tokens (as `token --account` prints them).
    static func signInBoth(
        _ emulator: PortalEmulator, environment env: [String: String]
    ) async throws -> (alice: String, bob: String) {
        let first = try await login(emulator, environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await loginBob(emulator, environment: env)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("alice stays active"), "\(second.stdout)")
        #expect(second.stdout.contains("portal-auth switch \(emulator.portalURL) bob"), "\(second.stdout)")
        var tokens: [String] = []
        for user in ["alice", "bob"] {
            let r = try await CLI.portalAuth(
                ["token", emulator.portalURL, "--account", user], emulator: emulator, environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            tokens.append(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(tokens[0] != tokens[1] && !tokens[0].isEmpty)
        return (tokens[0], tokens[1])
    }

    static func whoami(
        _ emulator: PortalEmulator, _ extra: [String] = [], environment: [String: String]
    ) async throws -> String {
        let r = try await CLI.portalAuth(["whoami", "--json"] + extra, emulator: emulator, environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return object?["username"] as? String ?? ""
    }

    static func token(_ emulator: PortalEmulator, environment: [String: String]) async throws -> String {
        let r = try await CLI.portalAuth(["token", emulator.portalURL], emulator: emulator, environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aSecondUserIsAddedAndSwitchedToAndTheFirstItemStaysAsEarlierVersionsWroteIt() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let tokens = try await Self.signInBoth(emulator, environment: env)
                // The active account's item is the one earlier versions wrote; bob's is beside it.
                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(items.components(separatedBy: "attribute.store = arcgis\n").count == 2, "\(items)")
                #expect(items.contains("attribute.store = arcgis-account"), "\(items)")
                #expect(!items.contains(alicePassword) && !items.contains(Self.bobPassword))
                #expect(try await Self.token(emulator, environment: env) == tokens.alice)
                #expect(try await Self.whoami(emulator, environment: env) == "alice")
                #expect(try await Self.whoami(emulator, ["--account", "bob"], environment: env) == "bob")
                let request = try await CLI.portalAuth(
                    ["request", emulator.portalURL + "/sharing/rest/community/self", "--account", "bob"],
                    emulator: emulator, environment: env)
                #expect(request.status == 0 && request.stdout.contains("\"bob\""), "\(request.stderr)")
                var withEnv = env
                withEnv["PORTAL_AUTH_ACCOUNT"] = "bob"
                #expect(try await Self.token(emulator, environment: withEnv) == tokens.bob)

                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("alice (active)") && status.stdout.contains("bob"), "\(status.stdout)")

                let unknown = try await CLI.portalAuth(["switch", "carol"], emulator: emulator, environment: env)
                #expect(unknown.status != 0 && unknown.oneLineError, "\(unknown.stderr)")
                #expect(unknown.stderr.contains("alice (active), bob"), "\(unknown.stderr)")

                let switched = try await CLI.portalAuth(["switch", "bob"], emulator: emulator, environment: env)
                #expect(switched.status == 0, "\(switched.stderr)")
                #expect(try await Self.token(emulator, environment: env) == tokens.bob)
                #expect(try await Self.whoami(emulator, environment: env) == "bob")
                #expect(try await Self.whoami(emulator, ["--account", "alice"], environment: env) == "alice")
                // Signing in again as bob replaces bob's credential; alice's stays.
                #expect(try await Self.loginBob(emulator, environment: env).status == 0)
                #expect(try await Self.token(emulator, environment: env) != tokens.bob)
                let alice = try await CLI.portalAuth(
                    ["token", emulator.portalURL, "--account", "alice"], emulator: emulator, environment: env)
                #expect(alice.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tokens.alice)
            }
        }
    }

    @Test func logoutRemovesTheActiveAccountOrTheOneNamed() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let tokens = try await Self.signInBoth(emulator, environment: env)
                let named = try await CLI.portalAuth(
                    ["logout", "--account", "bob"], emulator: emulator, environment: env)
                #expect(named.status == 0, "\(named.stderr)")
                #expect(try await Self.token(emulator, environment: env) == tokens.alice)
                let gone = try await CLI.portalAuth(
                    ["token", emulator.portalURL, "--account", "bob"], emulator: emulator, environment: env)
                #expect(gone.status != 0 && gone.stderr.contains("no account bob"), "\(gone.stderr)")

                #expect(try await Self.loginBob(emulator, environment: env).status == 0)
                let active = try await CLI.portalAuth(["logout"], emulator: emulator, environment: env)
                #expect(active.status == 0, "\(active.stderr)")
                #expect(active.stdout.contains("bob is now the active account"), "\(active.stdout)")
                #expect(try await Self.whoami(emulator, environment: env) == "bob")
                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(!items.contains("arcgis-account") && !items.contains("= alice"), "\(items)")
            }
        }
    }

    @Test func federatedServerTokensBelongToTheirAccount() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                _ = try await Self.signInBoth(emulator, environment: env)
                let service = emulator.serverURL + "/rest/services"
                var seen: [String: String] = [:]
                for (user, extra) in [("alice", [String]()), ("bob", ["--account", "bob"]), ("alice", [])] {
                    let r = try await CLI.portalAuth(
                        ["token", service] + extra, emulator: emulator, environment: env)
                    #expect(r.status == 0, "\(r.stderr)")
                    let token = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    if let before = seen[user] { #expect(before == token) } else { seen[user] = token }
                }
                #expect(seen["alice"] != seen["bob"])
                #expect(try await CLI.portalAuth(["switch", "bob"], emulator: emulator, environment: env).status == 0)
                let after = try await CLI.portalAuth(["token", service], emulator: emulator, environment: env)
                #expect(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == seen["bob"])
            }
        }
    }

    /// Two processes switch back and forth while others print the token: each token printed is
    /// one of the two users', and at the end one item is active and one inactive.
    @Test func switchesFromTwoProcessesAtOnceNeverMix() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let tokens = try await Self.signInBoth(emulator, environment: env)
                let rounds = 8
                let printed = try await withThrowingTaskGroup(of: [String].self) { group in
                    for first in ["bob", "alice"] {
                        group.addTask {
                            for round in 0..<rounds {
                                let user = round.isMultiple(of: 2) ? first : (first == "bob" ? "alice" : "bob")
                                let r = try await CLI.portalAuth(
                                    ["switch", user], emulator: emulator, environment: env)
                                #expect(r.status == 0, "\(r.stderr)")
                            }
                            return []
                        }
                    }
                    for _ in 0..<2 {
                        group.addTask {
                            var seen: [String] = []
                            for _ in 0..<rounds { seen.append(try await Self.token(emulator, environment: env)) }
                            return seen
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(printed.count == 2 * rounds)
                #expect(printed.allSatisfy { $0 == tokens.alice || $0 == tokens.bob }, "\(printed)")
                let items = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
                #expect(items.components(separatedBy: "attribute.store = arcgis\n").count == 2, "\(items)")
                #expect(items.components(separatedBy: "attribute.store = arcgis-account\n").count == 2, "\(items)")
                let user = try await Self.whoami(emulator, environment: env)
                let token = try await Self.token(emulator, environment: env)
                #expect(token == (user == "alice" ? tokens.alice : tokens.bob))
            }
        }
    }

    @Test func whereANamedAccountLives() {
        let portal = "https://h/portal"
        #expect(AccountPlace.decide(candidates: [portal], active: [portal], inactive: [])! == (.active, portal))
        #expect(AccountPlace.decide(candidates: [portal], active: [], inactive: [portal])! == (.inactive, portal))
        // Signed in elsewhere only: not this URL's account.
        #expect(AccountPlace.decide(candidates: ["https://h/server"], active: [], inactive: [portal]) == nil)
        #expect(AccountPlace.decide(candidates: [portal], active: ["https://o/portal"], inactive: []) == nil)
        #expect(AccountPlace.decide(candidates: [portal], active: [], inactive: []) == nil)
    }

    /// alice is active on the portal, bob only on the standalone server: `--account bob` for the
    /// portal neither prints alice's token nor signs alice out.
    @Test func anAccountSignedInElsewhereIsNeverAnotherUsersCredential() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                #expect(try await login(emulator, environment: env).status == 0)
                let server = emulator.standaloneServerURL + "/rest/services"
                let bob = try await CLI.portalAuth(
                    ["login", "--url", server, "--username", "bob", "--password-stdin"],
                    emulator: emulator, stdin: Self.bobPassword, environment: env)
                #expect(bob.status == 0, "\(bob.stderr)")
                let alice = try await Self.token(emulator, environment: env)
                let token = try await CLI.portalAuth(
                    ["token", emulator.portalURL, "--account", "bob"], emulator: emulator, environment: env)
                #expect(token.status != 0 && token.oneLineError, "\(token.stderr)")
                #expect(!token.stdout.contains(alice) && token.stderr.contains("alice (active)"), "\(token.stderr)")
                let logout = try await CLI.portalAuth(
                    ["logout", "--portal", emulator.portalURL, "--account", "bob"], emulator: emulator,
                    environment: env)
                #expect(logout.status != 0 && logout.oneLineError, "\(logout.stderr)")
                #expect(try await Self.token(emulator, environment: env) == alice)
                let own = try await CLI.portalAuth(
                    ["token", server, "--account", "bob"], emulator: emulator, environment: env)
                #expect(own.status == 0, "\(own.stderr)")
            }
        }
    }

    /// With the environment's credentials set for the portal, `--account` still uses the stored one.
    @Test func anAccountNamedWithEnvironmentCredentialsSetIsTheStoredOne() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                var env = keyring.environment
                let tokens = try await Self.signInBoth(emulator, environment: env)
                env["ARCGIS_HOST"] = emulator.portalURL
                env["ARCGIS_USER"] = "alice"
                env["ARCGIS_PASSWORD"] = alicePassword
                let before = emulator.counters().generateTokenRequests
                let r = try await CLI.portalAuth(
                    ["token", emulator.portalURL, "--account", "bob"], emulator: emulator, environment: env)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tokens.bob)
                #expect(emulator.counters().generateTokenRequests == before)
            }
        }
    }
}
