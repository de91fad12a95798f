import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("API keys: portal, feature service, expiry, invalidation, counters")
struct APIKeyPortalTests {
    @Test("portal:user:viewOrgItems reaches items and the feature service; other keys get 403")
    func portalAndFeatureService() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            let search = emulator.portalURL + "/sharing/rest/search?q=parcels&f=json"
            let found = try await emulator.getJSON(search, key: Keys.items.key).json()
            #expect(found["total"] as? Int == 1)
            let refused = try await emulator.getJSON(search, key: Keys.geocode.key)
            #expect(refused.errorCode == 403)
            #expect(
                errorMessage(refused)
                    == "You do not have permissions to access this resource or perform this operation.")
            let item = emulator.portalURL + "/sharing/rest/content/items/9f1c2b3a4d5e4f60a1b2c3d4e5f60718?f=json"
            #expect(try await emulator.getJSON(item, key: Keys.everything.key).json()["title"] != nil)
            #expect(try await emulator.getJSON(item, key: Keys.none.key).errorCode == 403)

            let query: [(String, String)] = [("where", "1=1"), ("returnCountOnly", "true")]
            let counted = try await emulator.query(emulator.serverQueryURL, token: Keys.items.key, query).json()
            #expect(counted["count"] as? Int == 24)
            #expect(emulator.counters().queriesByTokenKind["apiKey"] == 1)
            #expect(try await emulator.query(emulator.serverQueryURL, token: Keys.geocode.key, query).errorCode == 403)
            #expect(
                try await emulator.query(emulator.standaloneQueryURL, token: Keys.items.key, query).errorCode == 498)
        }
    }

    @Test("portals/self answers any valid key (without a user); user resources refuse keys")
    func portalSelf() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            let portalSelf = emulator.portalURL + "/sharing/rest/portals/self?f=json"
            let answer = try await emulator.getJSON(portalSelf, key: Keys.none.key).json()
            #expect(answer["helperServices"] != nil)
            #expect(answer["user"] == nil)
            #expect(try await emulator.getJSON(portalSelf, key: "AAPTunknown").errorCode == 498)
            let me = emulator.portalURL + "/sharing/rest/community/self?f=json"
            #expect(try await emulator.getJSON(me, key: Keys.everything.key).errorCode == 403)
        }
    }

    @Test("keys expire by the emulator's clock: a lifetime and an absolute date")
    func expiry() async throws {
        let hour = EmulatorAPIKey(key: "AAPThourLong", lifetimeSeconds: 3600, privileges: [EmulatorAPIKey.geocode])
        let dated = EmulatorAPIKey(
            key: "AAPTdated", expires: Date().addingTimeInterval(7200), privileges: [EmulatorAPIKey.geocode])
        let past = EmulatorAPIKey(
            key: "AAPTpast", expires: Date().addingTimeInterval(-60), privileges: [EmulatorAPIKey.geocode])
        try await withEmulator(configuring: { $0.apiKeys = [hour, dated, past] }) { emulator in
            #expect(try await emulator.geocode(key: hour.key).errorCode == nil)
            #expect(try await emulator.geocode(key: past.key).errorCode == 498)
            emulator.clock.advance(by: .seconds(3601))
            let expired = try await emulator.geocode(key: hour.key)
            #expect(expired.errorCode == 498)
            #expect(errorMessage(expired) == "Invalid token.")
            #expect(try await emulator.geocode(key: dated.key).errorCode == nil)
            emulator.clock.advance(by: .seconds(3600))
            #expect(try await emulator.geocode(key: dated.key).errorCode == 498)
        }
    }

    @Test("a referrer-bound key needs its Referer")
    func referer() async throws {
        let bound = EmulatorAPIKey(
            key: "AAPTbound", privileges: [EmulatorAPIKey.geocode], referer: "https://app.example.com")
        try await withEmulator(configuring: { $0.apiKeys = [bound] }) { emulator in
            #expect(try await emulator.geocode(key: bound.key).errorCode == 498)
            let sent = try await emulator.geocode(key: bound.key, headers: ["Referer": "https://app.example.com"])
            #expect(sent.errorCode == nil)
        }
    }

    @Test("oauth2/revokeToken with apiToken invalidates a slot, as arcgis-rest-js's invalidateApiKey calls it")
    func invalidation() async throws {
        let first = EmulatorAPIKey(privileges: [EmulatorAPIKey.geocode], clientId: "portal-auth-app", slot: 1)
        let second = EmulatorAPIKey(privileges: [EmulatorAPIKey.geocode], clientId: "portal-auth-app", slot: 2)
        try await withEmulator(configuring: { $0.apiKeys = [first, second] }) { emulator in
            #expect(first.key.hasPrefix("AAPT"))
            #expect(Array(second.key)[second.key.count - 10] == "2")
            let revoke = emulator.portalURL + "/sharing/rest/oauth2/revokeToken"
            let form = [
                ("client_id", "portal-auth-app"), ("apiToken", "1"), ("regenerateApiToken", "true"),
                ("grant_type", "client_credentials"), ("f", "json"),
            ]
            let wrong = try await Curl.post(
                revoke, form: form + [("client_secret", "nope")], ca: emulator.caCertificatePath)
            #expect(((try wrong.json()["error"] as? [String: Any])?["error"] as? String) == "invalid_client")
            #expect(try await emulator.geocode(key: first.key).errorCode == nil)

            let done = try await Curl.post(
                revoke, form: form + [("client_secret", "app-secret-456")], ca: emulator.caCertificatePath)
            #expect(try done.json()["success"] as? Bool == true)
            let invalidated = try await emulator.geocode(key: first.key)
            #expect(invalidated.errorCode == 498)
            #expect(try await emulator.geocode(key: second.key).errorCode == nil)
            #expect(emulator.counters().apiKeyInvalidations == 1)
        }
    }

    @Test("oauth2/token with apiToken regenerates the slot's key; the old one gets 498")
    func regeneration() async throws {
        let second = EmulatorAPIKey(privileges: [EmulatorAPIKey.geocode], clientId: "portal-auth-app", slot: 2)
        try await withEmulator(configuring: { $0.apiKeys = [second] }) { emulator in
            let answer = try await Curl.post(
                emulator.portalURL + "/sharing/rest/oauth2/token",
                form: [
                    ("client_id", "portal-auth-app"), ("client_secret", "app-secret-456"), ("apiToken", "2"),
                    ("regenerateApiToken", "true"), ("grant_type", "client_credentials"), ("f", "json"),
                ], ca: emulator.caCertificatePath
            ).json()
            let fresh = try #require(answer["access_token"] as? String)
            #expect(fresh.hasPrefix("AAPT") && fresh != second.key)
            #expect(Array(fresh)[fresh.count - 10] == "2")
            #expect((answer["expires_in"] as? Int ?? 0) > 31_000_000)
            #expect(try await emulator.geocode(key: fresh).errorCode == nil)
            #expect(try await emulator.geocode(key: second.key).errorCode == 498)
        }
    }

    @Test("admin hooks add and invalidate keys at run time; bad bodies get 400")
    func adminHooks() async throws {
        try await withEmulator { emulator in
            let ca = emulator.caCertificatePath
            let body = #"{"key":"AAPTaddedAtRunTime","lifetimeSeconds":60,"privileges":["premium:user:geocode"]}"#
            let added = try await Curl.run(
                [
                    "--cacert", ca, "-H", "Content-Type: application/json", "--data", body,
                    emulator.baseURL + "/emulator/api-keys",
                ])
            #expect(try added.json()["added"] as? Int == 1)
            #expect(try await emulator.geocode(key: "AAPTaddedAtRunTime").errorCode == nil)
            let bad = try await Curl.run(
                ["--cacert", ca, "--data", #"{"key":"not-a-key"}"#, emulator.baseURL + "/emulator/api-keys"])
            #expect(bad.status == 400)
            let gone = try await Curl.post(
                emulator.baseURL + "/emulator/invalidate-api-key", form: [("key", "AAPTaddedAtRunTime")], ca: ca)
            #expect(try gone.json()["success"] as? Bool == true)
            #expect(try await emulator.geocode(key: "AAPTaddedAtRunTime").errorCode == 498)

            emulator.addAPIKey(EmulatorAPIKey(key: "AAPTfromSwift", privileges: [EmulatorAPIKey.geocode]))
            #expect(try await emulator.geocode(key: "AAPTfromSwift").errorCode == nil)
            #expect(emulator.invalidateAPIKey("AAPTfromSwift"))
            #expect(!emulator.invalidateAPIKey("AAPTneverAdded"))
            #expect(try await emulator.geocode(key: "AAPTfromSwift").errorCode == 498)
        }
    }

    @Test("apiKeyRequestsByOrigin counts each key per host:port it reached, accepted or not")
    func counters() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            _ = try await emulator.geocode(key: Keys.geocode.key)
            _ = try await emulator.geocode(key: Keys.items.key)
            _ = try await emulator.getJSON(emulator.portalURL + "/sharing/rest/search?f=json", key: Keys.items.key)
            _ = try await emulator.geocode(key: "AAPTnotConfigured")
            let location = try #require(emulator.locationServicesBaseURL)
            let counted = emulator.counters().apiKeyRequestsByOrigin
            #expect(counted == [location: ["geocode": 1, "items": 1], emulator.baseURL: ["items": 1]])
            #expect(counted[emulator.baseURL]?["geocode"] == nil)
            let alice = try await emulator.portalToken()
            _ = try await emulator.geocode(key: alice)
            _ = try await emulator.geocode(key: nil)
            #expect(emulator.counters().apiKeyRequestsByOrigin == counted)
            #expect(emulator.counters().tokenBearingRequestsByOrigin == [location: 4, emulator.baseURL: 1])
        }
    }

    @Test("oversized or odd tokens and inputs are refused without harm")
    func bounded() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            let huge = "AAPT" + String(repeating: "x", count: 20_000)
            #expect(try await emulator.geocode(key: huge).errorCode == 498)
            let long = String(repeating: "a", count: 5000)
            let answer = try await emulator.getJSON(
                try #require(emulator.geocodeServiceURL) + "/findAddressCandidates?SingleLine=\(long)&f=json",
                key: Keys.geocode.key
            ).json()
            let address = (answer["candidates"] as? [[String: Any]])?.first?["address"] as? String
            #expect(address?.count == 200)
            let stops = Array(repeating: "1,1", count: 151).joined(separator: ";")
            let many = try await emulator.getJSON(
                try #require(emulator.routeServiceURL) + "/solve?stops=\(stops)&f=json", key: Keys.everything.key)
            #expect(many.errorCode == 400)
        }
    }
}

@Suite("API keys: configuration")
struct APIKeyConfigurationTests {

    @Test("without location services helperServices fall back to the federated server")
    func noLocationServices() async throws {
        try await withEmulator(configuring: { $0.locationServicesPort = nil }) { emulator in
            #expect(emulator.locationServicesPort == nil && emulator.geocodeServiceURL == nil)
            let answer = try await emulator.getJSON(emulator.portalURL + "/sharing/rest/portals/self?f=json", key: nil)
            let services = try #require(try answer.json()["helperServices"] as? [String: Any])
            let geocode = try #require((services["geocode"] as? [[String: Any]])?.first?["url"] as? String)
            #expect(geocode.hasPrefix(emulator.serverURL))
        }
    }
}
