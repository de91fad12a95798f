import Foundation
import PortalAuth
import PortalEmulator
import TestSupport
import Testing

/// `api-key create | list | rotate | revoke` signed in as alice, in a private keyring against
/// portal-emulator: every failed step leaves the old key stored and working, and a loop of
/// requests runs through a rotation without a failure.
@Suite struct APIKeyLifecycleCLITests {
    func withSignedIn(
        configuring configure: (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: (PortalEmulator, [String: String]) async throws -> Void
    ) async throws {
        try await withEmulator(configuring: configure) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let signedIn = try await login(emulator, environment: env)
                #expect(signedIn.status == 0, "\(signedIn.stderr)")
                try await body(emulator, env)
            }
        }
    }

    func run(_ arguments: [String], _ emulator: PortalEmulator, _ env: [String: String]) async throws -> CLIResult {
        try await CLI.portalAuth(arguments, emulator: emulator, environment: env)
    }

    /// Creates a geocoding key; returns its item ID.
    func create(_ emulator: PortalEmulator, _ env: [String: String]) async throws -> String {
        let created = try await run(
            [
                "api-key", "create", "--portal", emulator.portalURL, "--title", "Geocoding", "--privilege",
                EmulatorAPIKey.geocode, "--expiration", "30d",
            ], emulator, env)
        #expect(created.status == 0, "\(created.stderr)")
        let words = created.stdout.split(separator: " ")
        return String(try #require(words.dropFirst(3).first))
    }

    /// The key `token` prints for the geocoder (what a script gets), and whether a geocode with it works.
    func storedKeyWorks(_ emulator: PortalEmulator, _ env: [String: String]) async throws -> (String, Bool) {
        let geocode = try #require(emulator.geocodeServiceURL)
        let token = try await run(["token", geocode], emulator, env)
        let found = try await run(["request", geocode + "/findAddressCandidates?SingleLine=Redlands"], emulator, env)
        return (token.stdout, found.status == 0 && found.stdout.contains("\"score\""))
    }

    @Test func createStoresTheKeyAtOnceAndListShowsItsSlotsAndTheOneHeldHere() async throws {
        try await withSignedIn { emulator, env in
            let item = try await create(emulator, env)
            let (key, works) = try await storedKeyWorks(emulator, env)
            #expect(key.hasPrefix("AAPT") && works)
            #expect(APIKeySlot(key: key.trimmingCharacters(in: .newlines)) == .one)
            let list = try await run(["api-key", "list"], emulator, env)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains(item) && list.stdout.contains("Geocoding"))
            #expect(list.stdout.contains("slot 1: active") && list.stdout.contains("(stored here)"))
            #expect(list.stdout.contains("slot 2: empty"))
            #expect(list.stdout.contains(EmulatorAPIKey.geocode))
            #expect(!list.stdout.contains(key.trimmingCharacters(in: .newlines)))
        }
    }

    @Test func rotateStoresTheOtherSlotAndRevokesTheOldKey() async throws {
        try await withSignedIn { emulator, env in
            _ = try await create(emulator, env)
            let (old, _) = try await storedKeyWorks(emulator, env)
            let rotated = try await run(["api-key", "rotate", "--expiration", "60d"], emulator, env)
            #expect(rotated.status == 0, "\(rotated.stdout) \(rotated.stderr)")
            for step in [
                "mint a key in the other slot: done", "check the new key", "store the new key: done",
                "revoke the old slot: done",
            ] {
                #expect(rotated.stdout.contains(step), "\(rotated.stdout)")
            }
            let (new, works) = try await storedKeyWorks(emulator, env)
            #expect(new != old && works)
            #expect(APIKeySlot(key: new.trimmingCharacters(in: .newlines)) == .two)
            // The old key is refused at once (storing it again reads portals/self with it: 498).
            let oldKey = old.trimmingCharacters(in: .newlines)
            let refused = try await CLI.portalAuth(
                ["login", "--api-key-stdin", "--portal", emulator.portalURL], emulator: emulator,
                stdin: oldKey + "\n", environment: env)
            #expect(refused.status != 0 && refused.oneLineError, "\(refused.stdout) \(refused.stderr)")
            #expect(try await storedKeyWorks(emulator, env) == (new, true))
        }
    }

    @Test(arguments: ["/oauth2/token", "/portals/self"])
    func aRotationThatFailsBeforeTheCommitLeavesTheOldKeyStoredAndWorking(path: String) async throws {
        try await withSignedIn { emulator, env in
            _ = try await create(emulator, env)
            let (old, _) = try await storedKeyWorks(emulator, env)
            emulator.inject(Fault(kind: .http500, pathContains: path, count: 1))
            let rotated = try await run(["api-key", "rotate"], emulator, env)
            #expect(rotated.status == 1, "\(rotated.stdout) \(rotated.stderr)")
            #expect(rotated.stdout.contains(": failed ("), "\(rotated.stdout)")
            #expect(rotated.stderr.contains("the stored key is unchanged and still works"))
            let (after, works) = try await storedKeyWorks(emulator, env)
            #expect(after == old && works)
        }
    }

    @Test func aRevocationThatFailsAfterTheCommitSaysTheOldSlotStillWorks() async throws {
        try await withSignedIn { emulator, env in
            _ = try await create(emulator, env)
            let (old, _) = try await storedKeyWorks(emulator, env)
            emulator.inject(Fault(kind: .http500, pathContains: "/oauth2/revokeToken", count: 1))
            let rotated = try await run(["api-key", "rotate"], emulator, env)
            #expect(rotated.status == 1)
            #expect(rotated.stderr.contains("api-key revoke --slot 1"), "\(rotated.stderr)")
            let (new, works) = try await storedKeyWorks(emulator, env)
            #expect(new != old && works)
            let revoked = try await run(["api-key", "revoke", "--slot", "1"], emulator, env)
            #expect(revoked.status == 0, "\(revoked.stderr)")
            #expect(try await storedKeyWorks(emulator, env).1)
        }
    }

    @Test func revokeAllStopsTheStoredKeyAndSaysSo() async throws {
        try await withSignedIn { emulator, env in
            _ = try await create(emulator, env)
            let revoked = try await run(["api-key", "revoke", "--all"], emulator, env)
            #expect(revoked.status == 0, "\(revoked.stderr)")
            #expect(revoked.stdout.contains("Revoked slot 1") && revoked.stdout.contains("Revoked slot 2"))
            #expect(revoked.stderr.contains("no longer works"))
            #expect(try await !storedKeyWorks(emulator, env).1)
        }
    }

    @Test func aUserWithoutThePrivilegeGetsThePortals403InOneLine() async throws {
        try await withSignedIn(configuring: { configuration in
            for index in configuration.users.indices {
                configuration.users[index].privileges = [EmulatorAPIKey.geocode]
            }
        }) { emulator, env in
            let created = try await run(
                [
                    "api-key", "create", "--title", "t", "--privilege", EmulatorAPIKey.geocode,
                ], emulator, env)
            #expect(created.status != 0)
            #expect(created.oneLineError, "\(created.stderr)")
            #expect(created.stderr.contains("permission"), "\(created.stderr)")
        }
    }

    @Test func renewRotatesAKeyMadeHereWithinTheWindowAndTheNewKeyOutlivesTheOld() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                // alice's token renews itself (a kept password), so only the key decides renew's status.
                let signedIn = try await login(emulator, extra: ["--remember-password"], environment: env)
                #expect(signedIn.status == 0, "\(signedIn.stderr)")
                let created = try await run(
                    [
                        "api-key", "create", "--portal", emulator.portalURL, "--title", "Geocoding", "--privilege",
                        EmulatorAPIKey.geocode, "--expiration", "2d",
                    ], emulator, env)
                #expect(created.status == 0, "\(created.stderr)")
                let (old, _) = try await storedKeyWorks(emulator, env)
                let row = "\(emulator.portalURL) api-key: "
                // Two days away: outside a one-day window nothing is rotated.
                let early = try await run(["renew", "--within", "1d", "--rotate-api-keys"], emulator, env)
                #expect(early.status == 0, "\(early.stdout) \(early.stderr)")
                #expect(early.stdout.contains(row + "valid until") && early.stdout.contains(", nothing to do"))
                // Within three days, not asked to rotate: exit 6, saying how.
                let asked = try await run(["renew", "--within", "3d"], emulator, env)
                #expect(asked.status == 6, "\(asked.stdout) \(asked.stderr)")
                #expect(asked.stdout.contains(row + "expires ") && asked.stdout.contains("renew --rotate-api-keys"))
                #expect(try await storedKeyWorks(emulator, env).0 == old)
                // Asked: rotated to the other slot, the new key lasting 30 days.
                let renewed = try await run(
                    ["renew", "--within", "3d", "--rotate-api-keys", "--api-key-expiration", "30d"], emulator, env)
                #expect(renewed.status == 0, "\(renewed.stdout) \(renewed.stderr)")
                #expect(renewed.stdout.contains(row + "renewed, valid until"), "\(renewed.stdout)")
                let (new, works) = try await storedKeyWorks(emulator, env)
                #expect(new != old && works)
                #expect(APIKeySlot(key: new.trimmingCharacters(in: .newlines)) == .two)
                // Three days later by the portal's clock, past the old key's end, the new key still works.
                emulator.clock.advance(by: .seconds(3 * 86_400))
                #expect(try await storedKeyWorks(emulator, env) == (new, true))
            }
        }
    }

    /// A key stored from elsewhere (`login --api-key-stdin`: this machine does not know its item)
    /// answers that it cannot be renewed: `renew`, even asked to rotate, names the remedy the key
    /// gives (store a new one), not a rotation.
    @Test func renewSaysToStoreANewKeyForOneThisMachineDidNotMake() async throws {
        try await withSignedIn { emulator, env in
            _ = try await create(emulator, env)
            let key = try await storedKeyWorks(emulator, env).0.trimmingCharacters(in: .newlines)
            let stored = try await CLI.portalAuth(
                ["login", "--api-key-stdin", "--portal", emulator.portalURL, "--expires-in", "172800"],
                emulator: emulator, stdin: key + "\n", environment: env)
            #expect(stored.status == 0, "\(stored.stdout) \(stored.stderr)")
            let renewed = try await run(["renew", "--within", "3d", "--rotate-api-keys"], emulator, env)
            #expect(renewed.status == 6, "\(renewed.stdout) \(renewed.stderr)")
            let row = try #require(renewed.stdout.split(separator: "\n").first { $0.contains(" api-key: ") })
            #expect(
                row.hasSuffix(
                    "cannot renew itself: store a new key with printf '%s' \"$KEY\" | portal-auth login "
                        + "--api-key-stdin --portal \(emulator.portalURL)"), "\(row)")
            #expect(try await storedKeyWorks(emulator, env) == (key + "\n", true))
        }
    }

    @Test func aLoopOfRequestsRunsThroughARotationWithoutAFailure() async throws {
        try await withSignedIn { emulator, env in
            _ = try await create(emulator, env)
            let geocode = try #require(emulator.geocodeServiceURL) + "/findAddressCandidates?SingleLine=Redlands"
            let (started, startedSignal) = AsyncStream<Void>.makeStream()
            let stop = Locked<Int?>(nil)
            let loop = Task { () -> [Int32] in
                var statuses: [Int32] = []
                while true {
                    let result = try await CLI.portalAuth(["request", geocode], emulator: emulator, environment: env)
                    statuses.append(result.status)
                    if statuses.count == 1 { startedSignal.yield() }
                    let done = stop.withLock { remaining -> Bool in
                        guard let left = remaining else { return false }
                        remaining = left - 1
                        return left <= 1
                    }
                    if done { return statuses }
                }
            }
            for await _ in started { break }
            let rotated = try await run(["api-key", "rotate"], emulator, env)
            #expect(rotated.status == 0, "\(rotated.stdout) \(rotated.stderr)")
            stop.withLock { $0 = 3 }
            let statuses = try await loop.value
            #expect(statuses.count >= 4)
            #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses)")
        }
    }
}
