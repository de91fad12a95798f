import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Keys the API key tests configure, one per shape of privileges.
enum Keys {
    static let geocode = EmulatorAPIKey(
        key: "AAPTgeocodeOnlyKeyForTests0000000000001xxxxxxxxx", name: "geocode", privileges: [EmulatorAPIKey.geocode])
    static let everything = EmulatorAPIKey(
        key: "AAPKlegacyKeyWithEveryPrivilege", name: "everything", privileges: EmulatorAPIKey.allPrivileges)
    static let items = EmulatorAPIKey(
        key: "AAPTitemsOnly", name: "items", privileges: [EmulatorAPIKey.viewOrgItems])
    static let none = EmulatorAPIKey(key: "AAPTnoPrivileges", name: "none", privileges: [])
    static let all = [geocode, everything, items, none]
}

extension PortalEmulator {
    /// GET `url` with `key` in `X-Esri-Authorization` (none when nil), as JSON.
    func getJSON(_ url: String, key: String?, headers: [String: String] = [:]) async throws -> CurlResult {
        var all = headers
        if let key { all["X-Esri-Authorization"] = "Bearer \(key)" }
        return try await Curl.get(url, ca: caCertificatePath, headers: all)
    }

    /// `findAddressCandidates` for "380 New York St".
    func geocode(key: String?, headers: [String: String] = [:]) async throws -> CurlResult {
        try await getJSON(
            try #require(geocodeServiceURL) + "/findAddressCandidates?SingleLine=380%20New%20York%20St&f=json",
            key: key, headers: headers)
    }

    /// `solve` between two stops in Redlands.
    func solveRoute(key: String?) async throws -> CurlResult {
        try await getJSON(
            try #require(routeServiceURL) + "/solve?stops=-117.1957,34.0561;-117.2,34.06&f=json", key: key)
    }
}

/// The ArcGIS error message in a body, nil when it is not an error.
func errorMessage(_ result: CurlResult) -> String? {
    ((try? result.json())?["error"] as? [String: Any])?["message"] as? String
}

@Suite("API keys: location services")
struct APIKeyLocationServicesTests {
    @Test("portals/self lists the location services under helperServices, on a host:port of their own")
    func helperServices() async throws {
        try await withEmulator { emulator in
            let services = try #require(
                try await emulator.getJSON(emulator.portalURL + "/sharing/rest/portals/self?f=json", key: nil)
                    .json()["helperServices"] as? [String: Any])
            let geocode = try #require((services["geocode"] as? [[String: Any]])?.first)
            #expect(geocode["url"] as? String == emulator.geocodeServiceURL)
            #expect(geocode["northLat"] as? String == "Ymax")
            #expect(geocode["suggest"] as? Bool == true)
            #expect((services["route"] as? [String: Any])?["url"] as? String == emulator.routeServiceURL)
            let location = try #require(emulator.locationServicesPort)
            #expect(location != emulator.port)
            #expect(
                emulator.geocodeServiceURL == "https://127.0.0.1:\(location)/arcgis/rest/services/World/GeocodeServer")
            let root = try await emulator.getJSON(try #require(emulator.geocodeServiceURL) + "?f=json", key: nil)
            #expect(try root.json()["singleLineAddressField"] != nil)
            let onPortal = try await emulator.getJSON(
                emulator.baseURL + "/arcgis/rest/services/World/GeocodeServer?f=json", key: nil)
            #expect(onPortal.status == 404)
        }
    }

    @Test("no token 499, a key with the privilege answers, without it 403, unknown 498")
    func geocodeAnswers() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            let none = try await emulator.geocode(key: nil)
            #expect(none.errorCode == 499)
            #expect(errorMessage(none) == "Token Required")

            let good = try await emulator.geocode(key: Keys.geocode.key).json()
            let candidate = try #require((good["candidates"] as? [[String: Any]])?.first)
            #expect(candidate["address"] as? String == "380 New York St, Redlands, California, 92373")
            let location = try #require(candidate["location"] as? [String: Any])
            let x = try #require((location["x"] as? NSNumber)?.doubleValue)
            let y = try #require((location["y"] as? NSNumber)?.doubleValue)
            #expect(abs(x + 117.19569) < 0.001 && abs(y - 34.05608) < 0.001)

            let refused = try await emulator.geocode(key: Keys.items.key)
            #expect(refused.status == 200)
            #expect(refused.errorCode == 403)
            #expect(errorMessage(refused) == "User does not have permissions to access 'world.geocodeserver'.")
            #expect(try await emulator.geocode(key: "AAPTnotConfigured").errorCode == 498)
        }
    }

    @Test("routing needs premium:user:networkanalysis, basemap styles premium:user:basemaps")
    func routeAndStyles() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            let solved = try await emulator.solveRoute(key: Keys.everything.key).json()
            let routes = try #require(solved["routes"] as? [String: Any])
            let route = try #require((routes["features"] as? [[String: Any]])?.first)
            let miles = try #require(
                ((route["attributes"] as? [String: Any])?["Total_Miles"] as? NSNumber)?.doubleValue)
            #expect(miles > 0.1 && miles < 1)
            let refused = try await emulator.solveRoute(key: Keys.geocode.key)
            #expect(refused.errorCode == 403)
            #expect(errorMessage(refused) == "User does not have permissions to access 'world/route.naserver'.")
            #expect(try await emulator.solveRoute(key: nil).errorCode == 499)
            let bad = try await emulator.getJSON(
                try #require(emulator.routeServiceURL) + "/solve?stops=nan,1;x&f=json", key: Keys.everything.key)
            #expect(bad.errorCode == 400)

            let styles = try #require(emulator.basemapStylesURL) + "/arcgis/navigation"
            let style = try await emulator.getJSON(styles, key: Keys.everything.key).json()
            #expect(style["version"] as? Int == 8)
            #expect(try await emulator.getJSON(styles, key: Keys.geocode.key).errorCode == 403)
        }
    }

    @Test("the token is read from token=, a form, X-Esri-Authorization and Authorization: Bearer")
    func carriers() async throws {
        try await withEmulator(configuring: { $0.apiKeys = Keys.all }) { emulator in
            let url = try #require(emulator.geocodeServiceURL) + "/findAddressCandidates"
            let ca = emulator.caCertificatePath
            let key = Keys.geocode.key
            let answers = [
                try await Curl.get(url + "?SingleLine=Main%20St&f=json&token=\(key)", ca: ca),
                try await Curl.post(url, form: [("SingleLine", "Main St"), ("f", "json"), ("token", key)], ca: ca),
                try await Curl.get(
                    url + "?SingleLine=Main%20St&f=json", ca: ca, headers: ["Authorization": "Bearer \(key)"]),
                try await emulator.getJSON(url + "?SingleLine=Main%20St&f=json", key: key),
            ]
            let addresses = try answers.map {
                try ($0.json()["candidates"] as? [[String: Any]])?.first?["address"] as? String
            }
            #expect(addresses == Array(repeating: "Main St", count: 4))
        }
    }

    @Test("a user token is accepted when the member holds the privilege")
    func userTokens() async throws {
        try await withEmulator(configuring: {
            $0.apiKeys = Keys.all
            $0.users = [.alice, EmulatorUser(username: "carol", password: "carol-pw", privileges: [])]
        }) { emulator in
            let alice = try await emulator.portalToken()
            #expect(try await emulator.geocode(key: alice).json()["candidates"] != nil)
            let oauth = emulator.issueOAuthTokens(
                username: "alice", clientID: "portal-auth-cli", accessLifetimeSeconds: 600, refreshLifetimeSeconds: 600)
            #expect(try await emulator.solveRoute(key: oauth.accessToken).json()["routes"] != nil)
            let carol = try await emulator.portalToken("carol", "carol-pw")
            #expect(try await emulator.geocode(key: carol).errorCode == 403)
            let standalone = emulator.issueToken(username: "alice", lifetimeSeconds: 600, kind: .standalone)
            #expect(try await emulator.geocode(key: standalone).errorCode == 498)
        }
    }
}
