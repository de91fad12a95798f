import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth serve` reads the store again only when it changed (its backend's change stamp), so
/// every change another process makes must count at the next request: an API key stored, replaced
/// or removed, an account switched, everything signed out; in the keyring and in the file store.
@Suite struct ServeStoreChangeTests {
    static let first = EmulatorAPIKey(
        key: "AAPTserveFirstKeyEveryPrivilege0000000000001xxxxxxxx", name: "first", lifetimeSeconds: 86_400,
        privileges: EmulatorAPIKey.allPrivileges)
    static let second = EmulatorAPIKey(
        key: "AAPTserveSecondKeyEveryPrivilege000000000002xxxxxxxx", name: "second", lifetimeSeconds: 86_400,
        privileges: EmulatorAPIKey.allPrivileges)

    /// What the token endpoint gives, between the changes; each change in another process.
    static let script = #"""
        ALICE= BOB=
        # What the token endpoint answers for $1: the name of the token it gives, or its status.
        given() {
          local answer code token
          answer=$(curl -s -w '\n%{http_code}' "${BASE}token?url=$1")
          code=${answer##*$'\n'}
          [ "$code" = 200 ] || { echo "$code"; return; }
          token=$(printf '%s' "${answer%$'\n'*}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
          case "$token" in
            "$FIRST") echo "first key" ;; "$SECOND") echo "second key" ;;
            "$ALICE") echo alice ;; "$BOB") echo bob ;; *) echo "another token" ;;
          esac
        }
        start_serve
        echo "empty: $(given "$GEOCODE")"
        printf '%s\n' "$FIRST" | portal-auth login --api-key-stdin --portal "$PORTAL" >/dev/null
        echo "key stored: $(given "$GEOCODE")"
        echo "again: $(given "$GEOCODE")"
        printf '%s\n' "$SECOND" | portal-auth login --api-key-stdin --portal "$PORTAL" >/dev/null
        echo "key replaced: $(given "$GEOCODE")"
        portal-auth logout >/dev/null
        echo "key removed: $(given "$GEOCODE")"
        printf '%s' "$ALICE_PASSWORD" | portal-auth login --portal "$PORTAL" --username alice --password-stdin >/dev/null
        ALICE=$(portal-auth token "$PORTAL")
        echo "alice signed in: $(given "$PORTAL")"
        printf '%s' "$BOB_PASSWORD" | portal-auth login --portal "$PORTAL" --username bob --password-stdin >/dev/null
        BOB=$(portal-auth token "$PORTAL" --account bob)
        portal-auth switch bob >/dev/null
        echo "switched to bob: $(given "$PORTAL")"
        echo "again: $(given "$PORTAL")"
        portal-auth switch alice >/dev/null
        echo "switched back: $(given "$PORTAL")"
        portal-auth logout --all >/dev/null
        echo "signed out: $(given "$PORTAL")"
        stop_serve
        """#

    static let expected = """
        empty: 403
        key stored: first key
        again: first key
        key replaced: second key
        key removed: 403
        alice signed in: alice
        switched to bob: bob
        again: bob
        switched back: alice
        signed out: 403

        """

    @Test(arguments: ["file", "keyring"])
    func aChangeInAnotherProcessCountsAtTheNextRequest(store: String) async throws {
        try await withEmulator(configuring: { $0.apiKeys = [Self.first, Self.second] }) { emulator in
            try await withTemporaryDirectory("serve-change") { directory in
                if store == "keyring" {
                    try await withPrivateKeyring { keyring in
                        let environment = keyring.environment.merging(["PORTAL_AUTH_STORE": "keyring"]) { $1 }
                        try await Self.check(emulator, directory, extra: environment)
                    }
                } else {
                    try await Self.check(emulator, directory, extra: [:])
                }
            }
        }
    }

    /// Runs the script with serve over the test's store (`extra` chooses the keyring).
    static func check(_ emulator: PortalEmulator, _ directory: String, extra: [String: String]) async throws {
        let serve = ServeUse(use: TokenUse(emulator: emulator, directory: directory), log: LogCollector())
        let geocode = try #require(emulator.geocodeServiceURL)
        let result = try await serve.bash(
            Self.script,
            extra: extra.merging([
                "FIRST": first.key, "SECOND": second.key, "GEOCODE": geocode, "ALICE_PASSWORD": alicePassword,
                "BOB_PASSWORD": "bob-pass-456",
            ]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected, "\(result.stdout)")
    }
}
