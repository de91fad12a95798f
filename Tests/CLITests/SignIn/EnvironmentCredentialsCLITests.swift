import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Credentials from the environment (`ARCGIS_HOST` with a password, an app's client credentials
/// or an API key): used in memory for the portal and its federated servers, never stored.
@Suite struct EnvironmentCredentialsCLITests {
    /// The variables of a password sign-in at `emulator`'s portal.
    static func passwordVariables(_ emulator: PortalEmulator) -> [String: String] {
        ["ARCGIS_HOST": emulator.portalURL, "ARCGIS_USER": "alice", "ARCGIS_PASSWORD": alicePassword]
    }

    /// Whether nothing is in the keyring of `env` for the emulator's portal and server.
    static func keyringIsEmpty(_ emulator: PortalEmulator, _ env: [String: String]) async throws -> Bool {
        let portal = try await CLI.keyringItems(server: emulator.portalURL, environment: env)
        let server = try await CLI.keyringItems(server: emulator.serverURL, environment: env)
        return !portal.contains("label") && !server.contains("label")
    }

    @Test func aPasswordSignsInForEveryCommandAndNothingIsStored() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment.merging(Self.passwordVariables(emulator)) { $1 }
                func run(_ arguments: [String]) async throws -> CLIResult {
                    let r = try await CLI.portalAuth(arguments, emulator: emulator, environment: env)
                    #expect(r.status == 0, "\(arguments): \(r.stderr)")
                    #expect(!r.stdout.contains(alicePassword) && !r.stderr.contains(alicePassword))
                    return r
                }
                let token = try await run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(!token.isEmpty)
                let query = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query"
                let serverToken = try await run(["token", query]).stdout
                #expect(!serverToken.isEmpty && !serverToken.contains(token))
                let count = try await run(["request", query, "-f", "where=1=1", "-f", "returnCountOnly=true"])
                #expect(count.stdout.contains("\"count\""))
                #expect(try await run(["whoami"]).stdout.contains("alice (Alice Anderson)"))
                let exec = try await run([
                    "exec", query, "--", "/bin/sh", "-c", "test -n \"$PORTAL_AUTH_TOKEN\" && echo ok",
                ])
                #expect(exec.stdout == "ok\n")
                #expect(try await Self.keyringIsEmpty(emulator, env))
                let status = try await run(["status"])
                #expect(status.stdout.contains("ARCGIS_HOST, ARCGIS_USER, ARCGIS_PASSWORD"))
                #expect(status.stdout.contains(emulator.portalURL) && status.stdout.contains("No stored credentials"))
                #expect(
                    try await run(["doctor"]).stdout.contains("ARCGIS_USER, ARCGIS_PASSWORD) supplies a credential"))
                #expect(emulator.counters().generateTokenRequests >= 5)
            }
        }
    }

    @Test func clientCredentialsSignInAndTheFileStoreStaysEmpty() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory { dir in
                let path = dir + "/credentials.json"
                let env = [
                    "PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": path, "ARCGIS_HOST": emulator.portalURL,
                    "ARCGIS_CLIENT": "portal-auth-app", "ARCGIS_SECRET": "app-secret-456",
                ]
                for arguments in [
                    ["token"], ["request", emulator.portalURL + "/sharing/rest/portals/self"],
                    ["exec", "--", "/bin/sh", "-c", "test -n \"$PORTAL_AUTH_TOKEN\""],
                ] {
                    let r = try await CLI.portalAuth(arguments, emulator: emulator, environment: env)
                    #expect(r.status == 0, "\(arguments): \(r.stderr)")
                    #expect(!r.stdout.contains("app-secret-456") && !r.stderr.contains("app-secret-456"))
                }
                #expect(emulator.counters().clientCredentialsGrants >= 2)
                #expect(!FileManager.default.fileExists(atPath: path))
                let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                #expect(status.stdout.contains("ARCGIS_HOST, ARCGIS_CLIENT, ARCGIS_SECRET"))
                #expect(!status.stdout.contains("app-secret-456"))
            }
        }
    }

    /// In CI (no session bus, no store chosen), a command the environment answers uses no store: it
    /// says nothing of one and writes no file (the headless store's notice is for its first real use).
    @Test func aCommandTheEnvironmentAnswersChoosesNoStore() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory { state in
                let env = Self.passwordVariables(emulator).merging([
                    "XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": "/nonexistent",
                ]) { $1 }
                let token = try await CLI.portalAuth(
                    ["token"], emulator: emulator, environment: env,
                    removing: ["DBUS_SESSION_BUS_ADDRESS", "PORTAL_AUTH_STORE"])
                #expect(token.status == 0 && !token.stdout.isEmpty, "\(token.stderr)")
                #expect(!token.stderr.contains("store"), "\(token.stderr)")
                // (The headless store's folder may be made; no file is written in it.)
                let files = FileManager.default.enumerator(atPath: state)?.compactMap { $0 as? String }.filter {
                    var folder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: state + "/" + $0, isDirectory: &folder)
                        && !folder.boolValue
                }
                #expect(files == [], "\(files ?? [])")
            }
        }
    }

    @Test func aRefusedTokenRenewsInTheProcessAndAMovedClockNeedsNothingStored() async throws {
        try await withEmulator { emulator in
            let env = Self.passwordVariables(emulator).merging(["PORTAL_AUTH_STORE": "memory"]) { $1 }
            let me = emulator.portalURL + "/sharing/rest/community/self"
            // whoami signs in at community/self; its next request's token is refused, as an expired
            // one is: the token is renewed in the process, from the password it holds in memory.
            emulator.inject(Fault(kind: .rejectAllTokens, pathContains: "/community/users/", count: 1))
            let renewed = try await CLI.portalAuth(["whoami"], emulator: emulator, environment: env)
            #expect(renewed.status == 0, "\(renewed.stderr)")
            #expect(renewed.stdout.contains("alice (Alice Anderson)"))
            #expect(emulator.counters().generateTokenRequests == 2)
            // Two hours later every token issued so far has expired; a new process signs in again.
            let before = try await CLI.portalAuth(["token"], emulator: emulator, environment: env).stdout
            emulator.clock.advance(by: .seconds(7200))
            let after = try await CLI.portalAuth(["request", me], emulator: emulator, environment: env)
            #expect(after.status == 0, "\(after.stderr)")
            let again = try await CLI.portalAuth(["token"], emulator: emulator, environment: env).stdout
            #expect(!again.isEmpty && again != before)
        }
    }

    @Test func aURLOutsideTheHostsScopeUsesTheStoredCredentials() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                var env = keyring.environment
                #expect(try await login(emulator, environment: env).status == 0)
                let stored = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env
                )
                .stdout
                let signIns = emulator.counters().generateTokenRequests
                env.merge(Self.passwordVariables(emulator)) { $1 }
                env["ARCGIS_HOST"] = "https://portal.invalid/portal"
                let other = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                #expect(other.status == 0, "\(other.stderr)")
                #expect(other.stdout == stored)
                #expect(try await Self.source(of: emulator.portalURL, emulator, env) == "stored")
                // A standalone server (no owning portal) is outside the portal's scope too.
                env["ARCGIS_HOST"] = emulator.portalURL
                let standalone = try await CLI.portalAuth(
                    ["token", emulator.standaloneServerURL + "/rest/services"], emulator: emulator, environment: env)
                #expect(standalone.status == 3)
                #expect(emulator.counters().generateTokenRequests == signIns)
                #expect(emulator.counters().standaloneTokenRequests == 0)
                // Within the scope, the environment wins over the stored credential.
                let fromEnvironment = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                #expect(fromEnvironment.status == 0 && fromEnvironment.stdout != stored)
                // json names where the credential came from.
                #expect(try await Self.source(of: emulator.portalURL, emulator, env) == "environment")
                #expect(try await Self.source(of: emulator.portalURL, emulator, keyring.environment) == "stored")
            }
        }
    }

    /// The `source` that `token URL --format json` prints.
    static func source(of url: String, _ emulator: PortalEmulator, _ env: [String: String]) async throws -> String? {
        let r = try await CLI.portalAuth(["token", url, "--format", "json"], emulator: emulator, environment: env)
        try #require(r.status == 0, "\(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return object?["source"] as? String
    }

    @Test func aRefusedPasswordNamesTheVariablesNotLogin() async throws {
        try await withEmulator { emulator in
            var env = Self.passwordVariables(emulator)
            env["ARCGIS_PASSWORD"] = "wrong-pass-789"
            let r = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
            #expect(r.status == 3)
            #expect(r.oneLineError && r.stderr.contains("ARCGIS_USER and ARCGIS_PASSWORD"), "\(r.stderr)")
            #expect(!r.stderr.contains("portal-auth login") && !r.stderr.contains("wrong-pass-789"))
        }
    }

    @Test func partialVariablesAndHTTPAreOneLineUsageErrors() async throws {
        let cases: [([String: String], String)] = [
            (["ARCGIS_HOST": "https://portal.invalid", "ARCGIS_USER": "alice"], "ARCGIS_PASSWORD"),
            (["ARCGIS_HOST": "https://portal.invalid", "ARCGIS_SECRET": "secret-xyz"], "ARCGIS_CLIENT"),
            (["ARCGIS_CLIENT": "app", "ARCGIS_SECRET": "secret-xyz"], "ARCGIS_HOST"),
            (["ARCGIS_HOST": "http://portal.invalid", "ARCGIS_USER": "u", "ARCGIS_PASSWORD": "pw-xyz"], "plain http"),
        ]
        for (variables, named) in cases {
            for command in [["token", "https://portal.invalid"], ["whoami"]] {
                let r = try await CLI.portalAuth(command, emulator: nil, environment: variables)
                #expect(r.status == 2, "\(variables): \(r.stderr)")
                #expect(r.oneLineError && r.stderr.contains(named), "\(r.stderr)")
                #expect(!r.stderr.contains("secret-xyz") && !r.stderr.contains("pw-xyz"))
            }
        }
    }

    /// The key the emulator accepts in the API key tests.
    static let key = EmulatorAPIKey(
        key: "AAPTenvKeyEveryPrivilege000000000000000000003xxxxxxxxx", name: "env", lifetimeSeconds: 86_400,
        privileges: EmulatorAPIKey.allPrivileges)

    /// An emulator that accepts ``key`` and a private keyring's environment.
    func withKey(_ body: (PortalEmulator, [String: String]) async throws -> Void) async throws {
        try await withEmulator(configuring: { $0.apiKeys = [Self.key] }) { emulator in
            try await withPrivateKeyring { keyring in try await body(emulator, keyring.environment) }
        }
    }

    @Test func anAPIKeyGoesToThePortalAndItsServicesFromMemoryOnly() async throws {
        let key = Self.key
        try await withKey { emulator, keyringEnvironment in
            let env = keyringEnvironment.merging([
                "ARCGIS_HOST": emulator.portalURL, "ARCGIS_API_KEY": key.key,
            ]) { $1 }
            let token = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
            #expect(token.status == 0, "\(token.stderr)")
            #expect(token.stdout == key.key + "\n")
            // The portal's helper services are in the key's scope: the geocoder answers with it.
            let geocode = try #require(emulator.geocodeServiceURL)
            let found = try await CLI.portalAuth(
                ["request", geocode + "/findAddressCandidates?SingleLine=380%20New%20York%20St"],
                emulator: emulator, environment: env)
            #expect(found.status == 0, "\(found.stderr)")
            #expect(found.stdout.contains("\"score\""))
            // Another server is outside it: no stored credential there, so no token at all.
            let claimant = try await CLI.portalAuth(
                ["token", emulator.claimantServerURL + "/rest/services"], emulator: emulator, environment: env)
            #expect(claimant.status != 0 && !claimant.stdout.contains(key.key))
            let portalOrigin = "https://" + URL(string: emulator.portalURL)!.host()! + ":\(emulator.port)"
            let locationOrigin =
                "https://" + URL(string: geocode)!.host()! + ":\(emulator.locationServicesPort!)"
            #expect(Set(emulator.counters().apiKeyRequestsByOrigin.keys) == [portalOrigin, locationOrigin])
            #expect(emulator.counters().tokensSentToClaimant == 0)
            #expect(try await Self.keyringIsEmpty(emulator, env))
            let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
            #expect(status.stdout.contains("ARCGIS_HOST, ARCGIS_API_KEY") && !status.stdout.contains(key.key))
        }
    }

    @Test func anAPIKeyLeavesAFederatedServerToTheStoredCredential() async throws {
        let key = Self.key
        try await withKey { emulator, keyringEnvironment in
            var env = keyringEnvironment
            #expect(try await login(emulator, environment: env).status == 0)
            let query = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query"
            let stored = try await CLI.portalAuth(["token", query], emulator: emulator, environment: env)
            #expect(stored.status == 0, "\(stored.stderr)")
            env.merge(["ARCGIS_HOST": emulator.portalURL, "ARCGIS_API_KEY": key.key]) { $1 }
            // The federated server is outside the key's scope: the stored credential's token answers.
            let federated = try await CLI.portalAuth(["token", query], emulator: emulator, environment: env)
            #expect(federated.status == 0, "\(federated.stderr)")
            #expect(federated.stdout == stored.stdout && !federated.stdout.contains(key.key))
            let count = try await CLI.portalAuth(
                ["request", query, "-f", "where=1=1", "-f", "returnCountOnly=true"], emulator: emulator,
                environment: env)
            #expect(count.status == 0 && count.stdout.contains("\"count\""), "\(count.stderr)")
            // The portal is inside it: the key answers there.
            let portal = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
            #expect(portal.stdout == key.key + "\n")
        }
    }

    @Test func aRefusedKeyFromTheEnvironmentNamesTheVariableNotLogin() async throws {
        try await withEmulator { emulator in
            let env = [
                "ARCGIS_HOST": emulator.portalURL, "ARCGIS_API_KEY": "AAPTenvKeyUnknown000000000000000000005xxxxxxxxx",
                "PORTAL_AUTH_STORE": "memory",
            ]
            let r = try await CLI.portalAuth(["token"], emulator: emulator, environment: env)
            #expect(r.status == 3, "\(r.stderr)")
            #expect(r.oneLineError && r.stderr.contains("set ARCGIS_API_KEY to a valid key"), "\(r.stderr)")
            #expect(!r.stderr.contains("portal-auth login") && !r.stderr.contains("AAPTenvKeyUnknown"))
        }
    }
}
