import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("Federated and standalone servers")
struct ServerTests {
    @Test("rest/info names the owning portal and its token service")
    func federatedInfo() async throws {
        try await withEmulator { emulator in
            let info = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
                .json()
            #expect((info["currentVersion"] as? NSNumber)?.doubleValue == 11.3)
            #expect(info["owningSystemUrl"] as? String == emulator.portalURL)
            let auth = try #require(info["authInfo"] as? [String: Any])
            #expect(auth["isTokenBasedSecurity"] as? Bool == true)
            #expect(auth["tokenServicesUrl"] as? String == emulator.portalURL + "/sharing/rest/generateToken")
            #expect(auth["shortLivedTokenValidity"] as? Int == 60)
        }
    }

    @Test("the standalone server has no owning system and its own token service")
    func standaloneInfo() async throws {
        try await withEmulator { emulator in
            let info = try await Curl.get(
                emulator.standaloneServerURL + "/rest/info?f=json", ca: emulator.caCertificatePath
            ).json()
            #expect(info["owningSystemUrl"] == nil)
            let auth = try #require(info["authInfo"] as? [String: Any])
            #expect(auth["tokenServicesUrl"] as? String == emulator.standaloneServerURL + "/tokens/generateToken")
        }
    }

    @Test("the secured layer answers 499 without a token and 498 for a bad one")
    func tokenRequiredAndInvalid() async throws {
        try await withEmulator { emulator in
            let none = try await emulator.query(emulator.serverQueryURL, token: nil, [("where", "1=1")])
            #expect(none.status == 200)
            #expect(
                none.text
                    == #"{"error":{"code":499,"message":"Token Required","messageCode":"GWM_0003","details":[]}}"#)
            let bad = try await emulator.query(emulator.serverQueryURL, token: "not-a-token", [("where", "1=1")])
            #expect(bad.text == #"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#)
            let layer = try await Curl.get(
                emulator.serverURL + "/rest/services/Parcels/FeatureServer/0?f=json", ca: emulator.caCertificatePath)
            #expect(layer.errorCode == 499)
            #expect(emulator.counters().queriesByTokenKind == ["rejected": 2])
        }
    }

    @Test("a server token from token+serverUrl opens the federated layer")
    func serverTokenWorks() async throws {
        try await withEmulator { emulator in
            let portalToken = try await emulator.portalToken()
            let serverToken = try await emulator.serverToken(portalToken: portalToken)
            #expect(serverToken != portalToken)
            let result = try await emulator.query(
                emulator.serverQueryURL, token: serverToken, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try result.json()["count"] as? Int == 24)
            let layer = try await Curl.get(
                emulator.serverURL + "/rest/services/Parcels/FeatureServer/0?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(serverToken)"])
            #expect(try layer.json()["objectIdField"] as? String == "OBJECTID")
            let service = try await Curl.get(
                emulator.serverURL + "/rest/services/Parcels/FeatureServer?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(serverToken)"])
            #expect((try service.json()["layers"] as? [Any])?.count == 1)
            let counters = emulator.counters()
            #expect(counters.serverTokenRequests == 1)
            #expect(counters.generateTokenRequests == 1)
            #expect(counters.tokensIssued == 2)
            #expect(counters.queriesByTokenKind == ["server": 1])
        }
    }

    @Test("the server token is not valid on the portal or the standalone server")
    func serverTokenScope() async throws {
        try await withEmulator { emulator in
            let serverToken = try await emulator.serverToken(portalToken: try await emulator.portalToken())
            let portal = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(serverToken)"])
            #expect(portal.errorCode == 498)
            let standalone = try await emulator.query(
                emulator.standaloneQueryURL, token: serverToken, [("where", "1=1")])
            #expect(standalone.errorCode == 498)
        }
    }

    @Test("serverUrl must be the federated server and the portal token must be valid")
    func serverTokenErrors() async throws {
        try await withEmulator { emulator in
            let portalToken = try await emulator.portalToken()
            let other = try await Curl.post(
                emulator.generateTokenURL,
                form: [("token", portalToken), ("serverUrl", "https://elsewhere.example/server"), ("f", "json")],
                ca: emulator.caCertificatePath)
            let error = try #require(try other.json()["error"] as? [String: Any])
            #expect(error["code"] as? Int == 400)
            #expect((error["details"] as? [String]) == ["'serverUrl' is not a server federated with this portal."])
            let standaloneRoot = try await Curl.post(
                emulator.generateTokenURL,
                form: [("token", portalToken), ("serverUrl", emulator.standaloneServerURL), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(standaloneRoot.errorCode == 400)
            let badPortalToken = try await Curl.post(
                emulator.generateTokenURL,
                form: [("token", "bogus"), ("serverUrl", emulator.serverURL), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(badPortalToken.errorCode == 498)
            let withSlash = try await Curl.post(
                emulator.generateTokenURL,
                form: [("token", portalToken), ("serverUrl", emulator.serverURL + "/"), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(try withSlash.json()["token"] is String)
        }
    }

    @Test("the server token never outlives the portal token")
    func serverTokenExpiryCapped() async throws {
        try await withEmulator { emulator in
            let portal = try await emulator.signIn(extra: [("expiration", "10")])
            let portalToken = try #require(portal["token"] as? String)
            let portalExpires = try #require((portal["expires"] as? NSNumber)?.int64Value)
            let server = try await Curl.post(
                emulator.generateTokenURL,
                form: [
                    ("token", portalToken), ("serverUrl", emulator.serverURL), ("expiration", "600"), ("f", "json"),
                ],
                ca: emulator.caCertificatePath
            ).json()
            let serverExpires = try #require((server["expires"] as? NSNumber)?.int64Value)
            #expect(serverExpires <= portalExpires)
        }
    }

    @Test("exchange-only (serverAcceptsPortalTokens false): a portal token gets 498 on the federated server")
    func portalTokenRejected() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.serverAcceptsPortalTokens = false
        try await withEmulator(configuration) { emulator in
            let token = try await emulator.portalToken()
            let result = try await emulator.query(emulator.serverQueryURL, token: token, [("where", "1=1")])
            #expect(result.errorCode == 498)
            #expect(emulator.counters().queriesByTokenKind == ["rejected": 1])
        }
    }

    @Test("by default the federated server accepts the portal token, counted as portal")
    func portalTokenAccepted() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let result = try await emulator.query(
                emulator.serverQueryURL, token: token, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try result.json()["count"] as? Int == 24)
            #expect(emulator.counters().queriesByTokenKind == ["portal": 1])
        }
    }

    @Test("the standalone server issues its own tokens, valid only there")
    func standaloneTokens() async throws {
        try await withEmulator { emulator in
            let url = emulator.standaloneServerURL + "/tokens/generateToken"
            let answer = try await Curl.post(
                url, form: [("username", "bob"), ("password", "bob-pass-456"), ("f", "json")],
                ca: emulator.caCertificatePath
            ).json()
            let token = try #require(answer["token"] as? String)
            #expect(answer["ssl"] as? Bool == true)
            let ok = try await emulator.query(
                emulator.standaloneQueryURL, token: token, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try ok.json()["count"] as? Int == 24)
            let federated = try await emulator.query(emulator.serverQueryURL, token: token, [("where", "1=1")])
            #expect(federated.errorCode == 498)
            let portal = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(portal.errorCode == 498)
            let portalToken = try await emulator.portalToken()
            let withPortalToken = try await emulator.query(
                emulator.standaloneQueryURL, token: portalToken, [("where", "1=1")])
            #expect(withPortalToken.errorCode == 498)

            let wrong = try await Curl.post(
                url, form: [("username", "bob"), ("password", "x"), ("f", "json")], ca: emulator.caCertificatePath)
            #expect(wrong.errorCode == 400)
            let get = try await Curl.get(
                url + "?username=bob&password=bob-pass-456&f=json", ca: emulator.caCertificatePath)
            #expect(get.errorCode == 405)

            let counters = emulator.counters()
            #expect(counters.standaloneTokenRequests == 3)
            #expect(counters.queriesByTokenKind["standalone"] == 1)
            #expect(counters.queriesByTokenKind["rejected"] == 2)
        }
    }

    @Test("a standalone token issued directly works under /standalone")
    func issuedStandaloneToken() async throws {
        try await withEmulator { emulator in
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 60, kind: .standalone)
            let ok = try await emulator.query(
                emulator.standaloneQueryURL, token: token, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try ok.json()["count"] as? Int == 24)
            let server = emulator.issueToken(username: "alice", lifetimeSeconds: 60, kind: .server)
            let viaServer = try await emulator.query(
                emulator.serverQueryURL, token: server, [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try viaServer.json()["count"] as? Int == 24)
        }
    }
}
