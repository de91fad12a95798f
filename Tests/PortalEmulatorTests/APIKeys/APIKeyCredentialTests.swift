import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The calls arcgis-rest-js's `createApiKey`, `getApiKey` and `updateApiKey` make, answered as
/// ArcGIS answers them, errors included: `addItem`, `oauth2/registerApp`, `oauth2/apps/{id}/update`,
/// `registeredAppInfo`, `search` for the owner's keys, then minting and revoking a slot.
@Suite("API keys: credentials made through the portal (addItem, registerApp, update, registeredAppInfo)")
struct APIKeyCredentialTests {
    let rest = "/sharing/rest"

    func post(
        _ emulator: PortalEmulator, _ path: String, _ form: [(String, String)], token: String?
    ) async throws -> CurlResult {
        try await Curl.post(
            emulator.portalURL + rest + path, form: form + [("f", "json")] + (token.map { [("token", $0)] } ?? []),
            ca: emulator.caCertificatePath)
    }

    /// An item and its registered app for alice; the registerApp answer.
    func register(_ emulator: PortalEmulator, token: String) async throws -> [String: Any] {
        let item = try await post(
            emulator, "/content/users/alice/addItem", [("title", "Geocoding"), ("type", "API Key")], token: token
        ).json()
        let itemID = try #require(item["id"] as? String)
        #expect(item["success"] as? Bool == true && itemID.count == 32)
        return try await post(
            emulator, "/oauth2/registerApp",
            [
                ("itemId", itemID), ("appType", "apikey"), ("redirect_uris", "[]"), ("httpReferrers", "[]"),
                ("privileges", #"["premium:user:geocode"]"#),
            ], token: token
        ).json()
    }

    @Test("a key made, its slots' expiry set, read back with its secret, found by search, minted and revoked")
    func lifeOfAKey() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let app = try await register(emulator, token: token)
            let itemID = try #require(app["itemId"] as? String)
            let clientID = try #require(app["client_id"] as? String)
            #expect(app["appType"] as? String == "apikey" && (app["client_secret"] as? String)?.isEmpty == false)
            #expect(app["apiToken1Active"] as? Bool == false && app["apiToken2Active"] as? Bool == false)

            let inTenDays = Int64((Date().timeIntervalSince1970 + 10 * 86_400) * 1000)
            let updated = try await post(
                emulator, "/oauth2/apps/\(clientID)/update",
                [("appType", "apikey"), ("apiToken1ExpirationDate", String(inTenDays))], token: token
            ).json()
            #expect((updated["apiToken1ExpirationDate"] as? NSNumber)?.int64Value == inTenDays)
            #expect((updated["apiToken2ExpirationDate"] as? NSNumber)?.int64Value == -1)

            let info = try await post(
                emulator, "/content/users/alice/items/\(itemID)/registeredAppInfo", [], token: token
            ).json()
            let secret = try #require(info["client_secret"] as? String)
            #expect(info["client_id"] as? String == clientID)
            let found = try await post(
                emulator, "/search", [("q", #"owner:"alice" AND type:"API Key""#)], token: token
            ).json()
            let ids = (found["results"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == [itemID], "\(found)")

            let slot = [
                ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret),
                ("apiToken", "1"), ("regenerateApiToken", "true"),
            ]
            let minted = try await post(emulator, "/oauth2/token", slot, token: nil).json()
            let key = try #require(minted["access_token"] as? String)
            let seconds = try #require(minted["expires_in"] as? Int)
            #expect(abs(seconds - 10 * 86_400) < 120, "the slot's expiry: \(seconds)")
            #expect(try await emulator.geocode(key: key).errorCode == nil)
            let active = try await post(
                emulator, "/content/users/alice/items/\(itemID)/registeredAppInfo", [], token: token
            ).json()
            #expect(active["apiToken1Active"] as? Bool == true && active["apiToken2Active"] as? Bool == false)

            // A revoked slot's key is refused at once; a key minted again is refused past its slot's
            // expiry by the emulator's clock.
            let revoked = try await post(emulator, "/oauth2/revokeToken", slot, token: nil).json()
            #expect(revoked["success"] as? Bool == true)
            #expect(try await emulator.geocode(key: key).errorCode == 498)
            let again = try #require(
                try await post(emulator, "/oauth2/token", slot, token: nil).json()["access_token"] as? String)
            #expect(try await emulator.geocode(key: again).errorCode == nil)
            emulator.clock.advance(by: .seconds(10 * 86_400 + 60))
            #expect(try await emulator.geocode(key: again).errorCode == 498)
        }
    }

    @Test("errors as ArcGIS words them: no privilege, another's item, an unknown slot, a bad expiry, no token")
    func errors() async throws {
        try await withEmulator(configuring: { configuration in
            let bob = configuration.users.firstIndex { $0.username == "bob" }!
            configuration.users[bob].privileges = ["premium:user:geocode"]
        }) { emulator in
            let alice = try await emulator.portalToken()
            let bob = try await emulator.portalToken("bob", "bob-pass-456")
            let refused = try await post(
                emulator, "/content/users/bob/addItem", [("title", "t"), ("type", "API Key")], token: bob)
            #expect(refused.errorCode == 403)
            #expect(((try refused.json()["error"] as? [String: Any])?["messageCode"] as? String) == "GWM_0003")
            // alice's item is not bob's to read, nor anyone's without a token.
            let app = try await register(emulator, token: alice)
            let itemID = try #require(app["itemId"] as? String)
            let clientID = try #require(app["client_id"] as? String)
            let others = try await post(
                emulator, "/content/users/alice/items/\(itemID)/registeredAppInfo", [], token: bob)
            #expect(others.errorCode == 403)
            let anonymous = try await post(
                emulator, "/content/users/alice/items/\(itemID)/registeredAppInfo", [], token: nil)
            #expect(anonymous.errorCode == 499)
            let again = try await post(
                emulator, "/oauth2/registerApp", [("itemId", itemID), ("appType", "apikey")], token: alice)
            #expect(again.errorCode == 400)
            let tooLong = Int64((Date().timeIntervalSince1970 + 400 * 86_400) * 1000)
            let expiry = try await post(
                emulator, "/oauth2/apps/\(clientID)/update", [("apiToken2ExpirationDate", String(tooLong))],
                token: alice)
            #expect(expiry.errorCode == 400)
            let secret = try #require(app["client_secret"] as? String)
            let slot3 = try await post(
                emulator, "/oauth2/token",
                [
                    ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret),
                    ("apiToken", "3"), ("regenerateApiToken", "true"),
                ], token: nil)
            #expect(((try slot3.json()["error"] as? [String: Any])?["error"] as? String) == "invalid_request")
        }
    }
}
