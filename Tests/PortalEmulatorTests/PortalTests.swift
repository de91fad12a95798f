import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("Portal sharing API")
struct PortalTests {
    @Test("sharing/rest/info names the portal and its token service")
    func info() async throws {
        try await withEmulator { emulator in
            let info = try await Curl.get(
                emulator.portalURL + "/sharing/rest/info?f=json", ca: emulator.caCertificatePath
            ).json()
            #expect(info["owningSystemUrl"] as? String == emulator.baseURL + "/portal")
            let auth = try #require(info["authInfo"] as? [String: Any])
            #expect(auth["isTokenBasedSecurity"] as? Bool == true)
            #expect(auth["tokenServicesUrl"] as? String == emulator.portalURL + "/sharing/rest/generateToken")
            #expect(emulator.counters().infoRequests == 1)
        }
    }

    @Test("without f (or with f=html) the answer is the HTML directory page")
    func htmlWithoutFormat() async throws {
        try await withEmulator { emulator in
            for url in [
                emulator.portalURL + "/sharing/rest/info", emulator.serverURL + "/rest/info?f=html",
                emulator.standaloneServerURL + "/rest/info",
            ] {
                let result = try await Curl.get(url, ca: emulator.caCertificatePath)
                #expect(result.status == 200)
                #expect(result.contentType.hasPrefix("text/html"), "\(url): \(result.contentType)")
                #expect(result.text.contains("<title>ArcGIS Portal Directory</title>"))
                #expect((try? JSONSerialization.jsonObject(with: result.body)) == nil)
            }
            let pretty = try await Curl.get(
                emulator.portalURL + "/sharing/rest/info?f=pjson", ca: emulator.caCertificatePath)
            #expect(pretty.contentType.hasPrefix("application/json"))
            #expect(pretty.text.contains("\n"))
            #expect(try pretty.json()["owningSystemUrl"] as? String == emulator.portalURL)
        }
    }

    @Test("portals/self is anonymous without a token and includes the user with one")
    func portalSelf() async throws {
        try await withEmulator { emulator in
            let url = emulator.portalURL + "/sharing/rest/portals/self?f=json"
            let anonymous = try await Curl.get(url, ca: emulator.caCertificatePath).json()
            #expect(anonymous["name"] as? String == "Emulated Portal")
            #expect(anonymous["portalName"] as? String == "Emulated Portal")
            #expect(anonymous["isPortal"] as? Bool == true)
            #expect(anonymous["allSSL"] as? Bool == true)
            #expect(anonymous["supportsOAuth"] as? Bool == true)
            #expect(anonymous["currentVersion"] as? String == "2025.1")
            #expect(anonymous["urlKey"] is String)
            #expect(anonymous["id"] is String)
            #expect(anonymous["user"] == nil)
            let helpers = try #require(anonymous["helperServices"] as? [String: Any])
            let geocode = try #require((helpers["geocode"] as? [[String: Any]])?.first)
            #expect(geocode["url"] as? String == emulator.geocodeServiceURL)
            #expect(geocode["batch"] as? Bool == true)
            let route = try #require(helpers["route"] as? [String: Any])
            #expect(route["url"] as? String == emulator.routeServiceURL)

            let token = try await emulator.portalToken()
            let signedIn = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(token)"]
            ).json()
            let user = try #require(signedIn["user"] as? [String: Any])
            #expect(user["username"] as? String == "alice")
            #expect(user["role"] as? String == "org_admin")

            let invalid = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer nope"])
            #expect(invalid.errorCode == 498)
        }
    }

    @Test("portalName comes from the configuration")
    func configuredPortalName() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.portalName = "Test Portal"
        try await withEmulator(configuration) { emulator in
            let answer = try await Curl.get(
                emulator.portalURL + "/sharing/rest/portals/self?f=json", ca: emulator.caCertificatePath
            ).json()
            #expect(answer["name"] as? String == "Test Portal")
        }
    }

    @Test("community/self needs a token and returns the signed-in user")
    func communitySelf() async throws {
        try await withEmulator { emulator in
            let url = emulator.portalURL + "/sharing/rest/community/self?f=json"
            #expect(try await Curl.get(url, ca: emulator.caCertificatePath).errorCode == 499)
            #expect(
                try await Curl.get(
                    url, ca: emulator.caCertificatePath,
                    headers: ["X-Esri-Authorization": "Bearer x"]
                ).errorCode == 498)
            let token = try await emulator.portalToken()
            let user = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(token)"]
            ).json()
            #expect(user["username"] as? String == "alice")
            #expect(user["fullName"] as? String == "Alice Anderson")
            #expect(user["firstName"] as? String == "Alice")
            #expect(user["lastName"] as? String == "Anderson")
            #expect(user["email"] as? String == "alice@example.com")
            #expect(user["thumbnail"] as? String == "alice.png")
            #expect(user["provider"] as? String == "arcgis")
            #expect((user["created"] as? NSNumber)?.int64Value == 1_700_000_000_000)
            #expect(user["modified"] is NSNumber)
        }
    }

    @Test("community/users/{u} returns a user or COM_0019")
    func communityUsers() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let headers = ["X-Esri-Authorization": "Bearer \(token)"]
            let bob = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/users/bob?f=json", ca: emulator.caCertificatePath,
                headers: headers
            ).json()
            #expect(bob["username"] as? String == "bob")
            #expect(bob["fullName"] as? String == "Bob Brown")
            #expect(bob["role"] as? String == "org_user")
            #expect(bob["thumbnail"] is NSNull)
            let missing = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/users/nobody?f=json", ca: emulator.caCertificatePath,
                headers: headers)
            let error = try #require(try missing.json()["error"] as? [String: Any])
            #expect(error["code"] as? Int == 400)
            #expect(error["messageCode"] as? String == "COM_0019")
            #expect(error["message"] as? String == "User not found")
            let anonymous = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/users/bob?f=json", ca: emulator.caCertificatePath)
            #expect(anonymous.errorCode == 499)
        }
    }

    @Test("the thumbnail is a real PNG and needs a token")
    func thumbnail() async throws {
        try await withEmulator { emulator in
            let url = emulator.portalURL + "/sharing/rest/community/users/alice/info/alice.png"
            let anonymous = try await Curl.get(url, ca: emulator.caCertificatePath)
            #expect(!anonymous.contentType.hasPrefix("image/png"))
            let token = try await emulator.portalToken("bob", "bob-pass-456")
            let image = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(image.status == 200)
            #expect(image.contentType == "image/png")
            #expect(Array(image.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(Array(image.body.suffix(8)) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
            let other = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/users/alice/info/other.png",
                ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(other.status == 404)
        }
    }
}
