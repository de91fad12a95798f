import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("generateToken")
struct TokenTests {
    @Test("username and password give a token that expires in 60 minutes, in epoch milliseconds")
    func successDefaultLifetime() async throws {
        try await withEmulator { emulator in
            let before = nowMilliseconds()
            let answer = try await emulator.signIn()
            let after = nowMilliseconds()
            let token = try #require(answer["token"] as? String)
            #expect(token.count > 20)
            let expires = try #require((answer["expires"] as? NSNumber)?.int64Value)
            #expect(expires >= before + 60 * 60_000 - 1000)
            #expect(expires <= after + 60 * 60_000 + 1000)
            #expect(answer["ssl"] as? Bool == true)
            let counters = emulator.counters()
            #expect(counters.generateTokenRequests == 1)
            #expect(counters.tokensIssued == 1)
        }
    }

    @Test("expiration is honoured in minutes and capped by maxTokenLifetimeMinutes")
    func expirationParameter() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.maxTokenLifetimeMinutes = 120
        try await withEmulator(configuration) { emulator in
            // Bounded by the clock before and after each request (a loaded machine can take seconds).
            var before = nowMilliseconds()
            let short = try await emulator.signIn(extra: [("expiration", "5")])
            var after = nowMilliseconds()
            let shortExpires = try #require((short["expires"] as? NSNumber)?.int64Value)
            #expect(shortExpires >= before + 5 * 60_000 - 1000 && shortExpires <= after + 5 * 60_000 + 1000)
            before = nowMilliseconds()
            let long = try await emulator.signIn(extra: [("expiration", "20160")])
            after = nowMilliseconds()
            let longExpires = try #require((long["expires"] as? NSNumber)?.int64Value)
            #expect(longExpires >= before + 120 * 60_000 - 1000 && longExpires <= after + 120 * 60_000 + 1000)
        }
    }

    @Test("tokenLifetimeMinutes is the default lifetime")
    func configuredDefaultLifetime() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.tokenLifetimeMinutes = 2
        try await withEmulator(configuration) { emulator in
            // Bounded by the clock before and after the request, however long it took.
            let before = nowMilliseconds()
            let answer = try await emulator.signIn()
            let after = nowMilliseconds()
            let expires = try #require((answer["expires"] as? NSNumber)?.int64Value)
            #expect(expires >= before + 2 * 60_000 - 1000 && expires <= after + 2 * 60_000 + 1000)
        }
    }

    @Test("a wrong password gets the ArcGIS 400 error")
    func wrongPassword() async throws {
        try await withEmulator { emulator in
            let result = try await Curl.post(
                emulator.generateTokenURL, form: [("username", "alice"), ("password", "nope"), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(result.status == 200)
            #expect(
                result.text
                    == #"{"error":{"code":400,"message":"Unable to generate token.","details":["Invalid username or password."]}}"#
            )
            let unknown = try await emulator.signIn("mallory", "alice-pass-123")
            #expect((unknown["error"] as? [String: Any])?["code"] as? Int == 400)
            #expect(emulator.counters().generateTokenRequests == 2)
            #expect(emulator.counters().tokensIssued == 0)
        }
    }

    @Test("GET is refused even with good credentials")
    func getRefused() async throws {
        try await withEmulator { emulator in
            let result = try await Curl.get(
                emulator.generateTokenURL + "?username=alice&password=alice-pass-123&f=json",
                ca: emulator.caCertificatePath)
            #expect(result.errorCode == 405)
            #expect(try result.json()["token"] == nil)
            #expect(emulator.counters().tokensIssued == 0)
        }
    }

    @Test("tokens expire: a short-lived token turns into 498")
    func tokenExpiry() async throws {
        try await withEmulator { emulator in
            // An hour of margin for a loaded machine between issuing and the first use; then the
            // clock, not the wall, moves past the expiry.
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 3600)
            let url = emulator.portalURL + "/sharing/rest/community/self?f=json"
            let headers = ["X-Esri-Authorization": "Bearer \(token)"]
            let fresh = try await Curl.get(url, ca: emulator.caCertificatePath, headers: headers)
            #expect(try fresh.json()["username"] as? String == "alice")
            emulator.clock.advance(by: .seconds(3601))
            let stale = try await Curl.get(url, ca: emulator.caCertificatePath, headers: headers)
            #expect(stale.errorCode == 498)
        }
    }

    @Test("expireAllTokens makes issued tokens 498 but new ones work")
    func expireAll() async throws {
        try await withEmulator { emulator in
            let old = try await emulator.portalToken()
            emulator.expireAllTokens()
            let url = emulator.portalURL + "/sharing/rest/community/self?f=json"
            let stale = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(old)"])
            #expect(stale.errorCode == 498)
            let new = try await emulator.portalToken()
            let ok = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(new)"])
            #expect(ok.errorCode == nil)
            #expect(try ok.json()["username"] as? String == "alice")
        }
    }

    @Test("the token parameter works like the header")
    func tokenParameter() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken("bob", "bob-pass-456")
            let result = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json&token=\(token)",
                ca: emulator.caCertificatePath)
            #expect(try result.json()["username"] as? String == "bob")
        }
    }

    @Test("client=referer binds the token to the Referer header")
    func refererBinding() async throws {
        try await withEmulator { emulator in
            let answer = try await emulator.signIn(extra: [("client", "referer"), ("referer", "https://app.example")])
            let token = try #require(answer["token"] as? String)
            let url = emulator.portalURL + "/sharing/rest/community/self?f=json"
            let auth = "Bearer \(token)"
            let none = try await Curl.get(url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": auth])
            #expect(none.errorCode == 498)
            let wrong = try await Curl.get(
                url, ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": auth, "Referer": "https://evil.example"])
            #expect(wrong.errorCode == 498)
            let right = try await Curl.get(
                url, ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": auth, "Referer": "https://app.example"])
            #expect(try right.json()["username"] as? String == "alice")

            let missing = try await emulator.signIn(extra: [("client", "referer")])
            #expect((missing["error"] as? [String: Any])?["code"] as? Int == 400)

            let issued = emulator.issueToken(username: "bob", lifetimeSeconds: 60, referer: "https://b.example")
            let bound = try await Curl.get(
                url, ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(issued)", "Referer": "https://b.example"])
            #expect(try bound.json()["username"] as? String == "bob")
            let unbound = try await Curl.get(
                url, ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(issued)"])
            #expect(unbound.errorCode == 498)
        }
    }

    @Test("client=requestip binds the token to the caller's address")
    func requestIPBinding() async throws {
        try await withEmulator { emulator in
            let answer = try await emulator.signIn(extra: [("client", "requestip")])
            let token = try #require(answer["token"] as? String)
            let result = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(try result.json()["username"] as? String == "alice")
            let other = try await emulator.signIn(extra: [("client", "ip"), ("ip", "10.9.8.7")])
            let otherToken = try #require(other["token"] as? String)
            let rejected = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(otherToken)"])
            #expect(rejected.errorCode == 498)
        }
    }
}
