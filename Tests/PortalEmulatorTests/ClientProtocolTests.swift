import Foundation
import Logging
import PortalEmulator
import Synchronization
import TestSupport
import Testing

@Suite("Tokens as Esri's clients, curl and GDAL present them")
struct ClientProtocolTests {
    @Test("Authorization: Bearer is a token carrier at the portal and the federated server")
    func authorizationBearer() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let me = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["Authorization": "Bearer \(token)"])
            #expect(try me.json()["username"] as? String == "alice")
            let count = try await Curl.get(
                emulator.serverQueryURL + "?where=1%3D1&returnCountOnly=true&f=json", ca: emulator.caCertificatePath,
                headers: ["Authorization": "Bearer \(token)"])
            #expect(try count.json()["count"] as? Int == 24)
            let forged = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["Authorization": "Bearer forged"])
            #expect(forged.errorCode == 498)
        }
    }

    @Test("a client=requestip token works with Referer: http, as GIS(url, token=) sends it")
    func requestIPToken() async throws {
        try await withEmulator { emulator in
            let token = try #require(try await emulator.signIn(extra: [("client", "requestip")])["token"] as? String)
            let me = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)", "Referer": "http"])
            #expect(try me.json()["username"] as? String == "alice")
        }
    }

    @Test("an app token: the portal refuses to exchange it (498), the federated server takes it directly")
    func appTokenFederation() async throws {
        try await withEmulator { emulator in
            let answer = try await Curl.post(
                emulator.portalURL + "/sharing/rest/oauth2/token",
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "portal-auth-app"),
                    ("client_secret", "app-secret-456"), ("f", "json"),
                ], ca: emulator.caCertificatePath)
            let appToken = try #require(try answer.json()["access_token"] as? String)
            let exchange = try await Curl.post(
                emulator.generateTokenURL,
                form: [("token", appToken), ("serverUrl", emulator.serverURL), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(exchange.errorCode == 498)
            let direct = try await emulator.query(
                emulator.serverQueryURL, token: appToken, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try direct.json()["count"] as? Int == 24)
            #expect(emulator.counters().queriesByTokenKind == ["app": 1])
        }
    }

    @Test("the request log names method, path, status and credential kind, never the token or password")
    func requestLog() async throws {
        let collector = LogCollector()
        try await withEmulator(logger: collector.logger(level: .info)) { emulator in
            let token = try await emulator.portalToken()
            _ = try await emulator.query(emulator.serverQueryURL, token: token, [("where", "1=1")])
            _ = try await Curl.get(
                emulator.portalURL + "/sharing/rest/portals/self?f=json&token=\(token)", ca: emulator.caCertificatePath
            )
        }
        let requests = collector.all.filter { $0.hasPrefix("request ") }
        #expect(
            requests.contains(
                "request credential=password method=POST path=/portal/sharing/rest/generateToken status=200"))
        #expect(
            requests.contains(
                "request credential=x-esri-authorization:portal method=POST"
                    + " path=/server/rest/services/Parcels/FeatureServer/0/query status=200"))
        #expect(
            requests.contains(
                "request credential=token:portal method=GET path=/portal/sharing/rest/portals/self status=200"))
        let everything = collector.all.joined(separator: "\n")
        #expect(!everything.contains("alice-pass-123"))
        #expect(!everything.contains("where"))
        let tokens = requests.count
        #expect(tokens == 3)
        for line in collector.all { #expect(!line.contains("token=")) }
    }

    @Test("the clock: POST /emulator/clock advance=SECONDS expires tokens; bad values are refused")
    func clockEndpoint() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let before = try await Curl.get(emulator.baseURL + "/emulator/clock", ca: emulator.caCertificatePath)
            #expect(try before.json()["offsetSeconds"] as? Int == 0)
            let bad = try await Curl.post(
                emulator.baseURL + "/admin/clock", form: [("advance", "-5")], ca: emulator.caCertificatePath)
            #expect(bad.status == 400)
            #expect(try await emulator.whoIs(token).username == "alice")
            let moved = try await Curl.post(
                emulator.baseURL + "/admin/clock", form: [("advance", "3601")], ca: emulator.caCertificatePath)
            #expect(try moved.json()["offsetSeconds"] as? Int == 3601)
            #expect(emulator.clock.offset == .seconds(3601))
            #expect(try await emulator.whoIs(token).code == 498)
            #expect(try await emulator.whoIs(try await emulator.portalToken()).username == "alice")
        }
    }

    @Test("OAuth access and refresh tokens expire by the clock too")
    func clockExpiresOAuthRefreshTokens() async throws {
        try await withEmulator { emulator in
            let seeded = emulator.issueOAuthTokens(
                username: "alice", clientID: "portal-auth-cli", accessLifetimeSeconds: 1800,
                refreshLifetimeSeconds: 7200)
            #expect(try await emulator.whoIs(seeded.accessToken).username == "alice")
            emulator.clock.advance(by: .seconds(1801))
            #expect(try await emulator.whoIs(seeded.accessToken).code == 498)
            let refreshed = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"),
                ("refresh_token", seeded.refreshToken),
            ])
            #expect(refreshed["access_token"] is String)
            emulator.clock.advance(by: .seconds(5400))
            let late = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"),
                ("refresh_token", seeded.refreshToken),
            ])
            #expect(oauthError(late) == (498, "invalid_request"))
        }
    }
}
