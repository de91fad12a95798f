import Foundation
import PortalEmulator
import Testing

@testable import PortalAuth

/// Rotating an API key without downtime, as actions: mint the other slot, verify, commit, revoke;
/// a failure before the commit leaves the old key (its slot never touched, its item never replaced).
@Suite struct APIKeyRotationTests {
    /// Runs a rotation from `slot`, failing at `failing` (nil: none); returns the actions in order.
    static func run(from slot: APIKeySlot, failing: APIKeyRotation.Step?) -> [APIKeyRotation.Action] {
        var machine = APIKeyRotation(oldSlot: slot)
        var actions = [machine.start()]
        while true {
            let action = actions.last!
            if case .finish = action { return actions }
            if let failing, machine.step == failing {
                actions.append(machine.failed())
                continue
            }
            switch action {
            case .mint(let slot): actions.append(machine.minted(key: EmulatorAPIKey.generateKey(slot: slot.rawValue)))
            case .verify: actions.append(machine.verified())
            case .commit: actions.append(machine.committed())
            case .revoke: actions.append(machine.revoked())
            case .finish: return actions
            }
        }
    }

    @Test(arguments: APIKeySlot.allCases)
    func aRotationMintsTheOtherSlotVerifiesCommitsThenRevokesTheOldOne(slot: APIKeySlot) {
        #expect(
            Self.run(from: slot, failing: nil) == [
                .mint(slot.other), .verify, .commit, .revoke(slot), .finish(.rotated(from: slot, to: slot.other)),
            ])
    }

    @Test(arguments: [APIKeyRotation.Step.mint, .verify, .commit])
    func aFailureBeforeTheCommitEndsWithoutTouchingTheOldSlotOrTheStore(step: APIKeyRotation.Step) {
        let actions = Self.run(from: .one, failing: step)
        #expect(actions.last == .finish(.failed(step)))
        // Nothing revokes slot 1, and a commit is asked for only after a verification succeeded.
        #expect(!actions.contains(.revoke(.one)))
        #expect(actions.contains(.commit) == (step == .commit))
    }

    @Test func aFailedRevocationAfterTheCommitSaysTheOldKeyIsStillLive() {
        #expect(Self.run(from: .two, failing: .revoke).last == .finish(.rotatedOldKeyStillLive(from: .two, to: .one)))
    }

    @Test func aKeyMintedInTheOldSlotFailsTheMint() {
        var machine = APIKeyRotation(oldSlot: .one)
        #expect(machine.start() == .mint(.two))
        #expect(machine.minted(key: EmulatorAPIKey.generateKey(slot: 1)) == .finish(.failed(.mint)))
        #expect(machine.step == nil)
    }

    @Test func eventsOutOfOrderNeverReachTheCommit() {
        var machine = APIKeyRotation(oldSlot: .one)
        #expect(machine.verified() == .finish(.failed(.mint)))
        #expect(machine.committed() == .finish(.failed(.mint)))
        var started = APIKeyRotation(oldSlot: .two)
        _ = started.start()
        #expect(started.committed() == .finish(.failed(.mint)))
        #expect(started.revoked() == .finish(.failed(.mint)))
    }

    @Test(arguments: [1, 2])
    func theSlotIsReadFromTheTenthCharacterFromTheEnd(slot: Int) {
        #expect(APIKeySlot(key: EmulatorAPIKey.generateKey(slot: slot))?.rawValue == slot)
        #expect(APIKeySlot(key: "AAPT" + String(repeating: "x", count: 20) + "\(slot)123456789")?.rawValue == slot)
    }

    @Test(arguments: ["", "123456789", "AAPTabc3123456789", "AAPKabcdefghijklmnopqrst"])
    func aKeyWithoutASlotDigitHasNoSlot(key: String) {
        #expect(APIKeySlot(key: key) == nil)
    }

    @Test func registeredAppInfoGivesSlotsPrivilegesAndNeverTheSecret() throws {
        let text = """
            {"itemId":"0123456789abcdef0123456789abcdef","client_id":"abc","client_secret":"s3cret",
             "appType":"apikey","privileges":["premium:user:geocode"],"httpReferrers":["https://a.example.com"],
             "apiToken1ExpirationDate":1798675200000,"apiToken2ExpirationDate":-1,
             "apiToken1Active":true,"apiToken2Active":false}
            """
        let info = try #require(APIKeyInfo(registeredAppInfo: JSONValue.parse(Array(text.utf8), source: "test")))
        #expect(info.privileges == ["premium:user:geocode"])
        #expect(info.httpReferrers == ["https://a.example.com"])
        #expect(info.slot(.one).expirationDate == Date(timeIntervalSince1970: 1_798_675_200))
        #expect(info.slot(.one).isActive == true)
        #expect(info.slot(.two).expirationDate == nil)
        #expect(!String(describing: info).contains("s3cret"))
        let oauthApp = Array(#"{"itemId":"x","client_id":"abc","appType":"browser"}"#.utf8)
        #expect(APIKeyInfo(registeredAppInfo: try JSONValue.parse(oauthApp, source: "test")) == nil)
    }

    @Test func aStoredKeyFromBeforeItemIDsStillReadsAndOneWithItKeepsIt() throws {
        var key = try APIKeyCredential(apiKey: "AAPTkey1234567890", portalURL: URL(string: "https://h.example.com/p")!)
        let old = try JSONDecoder().decode(APIKeyCredential.self, from: JSONEncoder().encode(key))
        #expect(old.itemID == nil)
        key.itemID = "0123456789abcdef0123456789abcdef"
        #expect(try JSONDecoder().decode(APIKeyCredential.self, from: JSONEncoder().encode(key)) == key)
    }

    @Test func aNewKeyLastsOneDayToOneYearAndNeedsAPrivilege() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func new(
            _ seconds: TimeInterval, _ privileges: [String] = ["premium:user:geocode"]
        ) -> APIKeyAdministration.NewKey {
            .init(title: "t", privileges: privileges, expirationDate: now.addingTimeInterval(seconds))
        }
        #expect(throws: Never.self) { try APIKeyAdministration.check(new(30 * 86_400), now: now) }
        #expect(throws: PortalAuthError.self) { try APIKeyAdministration.check(new(3_600), now: now) }
        #expect(throws: PortalAuthError.self) { try APIKeyAdministration.check(new(400 * 86_400), now: now) }
        #expect(throws: PortalAuthError.self) { try APIKeyAdministration.check(new(30 * 86_400, []), now: now) }
    }
}
