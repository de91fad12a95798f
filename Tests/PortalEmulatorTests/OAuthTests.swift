import Foundation
import PortalEmulator
import TestSupport
import Testing

/// A PKCE pair computed outside Swift (Python's hashlib):
/// BASE64URL(SHA256("dBjftJeZ4CVP-mJ0kfj9O1rGa9WeFyaCeq7kZhNhpkd")).
private let verifier = "dBjftJeZ4CVP-mJ0kfj9O1rGa9WeFyaCeq7kZhNhpkd"
private let challenge = "_gLnVyA80rU7uuTjXDaqqIUlNfCO2dJBb7MEz5KrNRw"
private let loopback = "http://127.0.0.1:49152/oauth/callback"
private let oob = "urn:ietf:wg:oauth:2.0:oob"

extension PortalEmulator {
    var authorizeURL: String { portalURL + "/sharing/rest/oauth2/authorize" }
    var oauthTokenURL: String { portalURL + "/sharing/rest/oauth2/token" }

    func authorizeParameters(
        clientID: String = "portal-auth-cli", redirect: String = loopback, state: String = "s-123",
        challenge: String? = challenge
    ) -> [(String, String)] {
        var parameters = [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirect), ("state", state),
        ]
        if let challenge { parameters += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        return parameters
    }

    /// Submits the sign-in form the way a browser would and returns the answer (not followed).
    func submitSignIn(
        _ parameters: [(String, String)], action: String = "approve",
        password: String = "alice-pass-123"
    ) async throws -> CurlResult {
        try await Curl.post(
            authorizeURL, form: parameters + [("username", "alice"), ("password", password), ("action", action)],
            ca: caCertificatePath)
    }

    /// Signs alice in at the loopback redirect and returns the code from the redirect.
    func authorizationCode(redirect: String = loopback) async throws -> String {
        let answer = try await submitSignIn(authorizeParameters(redirect: redirect))
        #expect(answer.status == 302)
        return try #require(queryItems(answer.location)["code"])
    }

    func redeem(_ form: [(String, String)]) async throws -> [String: Any] {
        try await Curl.post(oauthTokenURL, form: form + [("f", "json")], ca: caCertificatePath).json()
    }

    func redeemCode(
        _ code: String, verifier: String? = verifier, redirect: String = loopback
    ) async throws -> [String: Any] {
        var form = [
            ("grant_type", "authorization_code"), ("client_id", "portal-auth-cli"), ("code", code),
            ("redirect_uri", redirect),
        ]
        if let verifier { form.append(("code_verifier", verifier)) }
        return try await redeem(form)
    }

    /// `community/self` with a bearer token: the username, or the ArcGIS error code.
    func whoIs(_ token: String) async throws -> (username: String?, code: Int?) {
        let answer = try await Curl.get(
            portalURL + "/sharing/rest/community/self?f=json", ca: caCertificatePath,
            headers: ["X-Esri-Authorization": "Bearer \(token)"])
        return (try answer.json()["username"] as? String, answer.errorCode)
    }
}

func queryItems(_ url: String) -> [String: String] {
    var items: [String: String] = [:]
    for item in URLComponents(string: url)?.queryItems ?? [] { items[item.name] = item.value ?? "" }
    return items
}

/// The OAuth error member of a token answer: (code, error).
func oauthError(_ answer: [String: Any]) -> (Int?, String?) {
    let error = answer["error"] as? [String: Any]
    return ((error?["code"] as? NSNumber)?.intValue, error?["error"] as? String)
}

@Suite("OAuth 2.0")
struct OAuthTests {
    @Test("authorize shows a sign-in form carrying every parameter, for a loopback redirect on any port")
    func signInPage() async throws {
        try await withEmulator { emulator in
            for port in [49152, 8123] {
                let page = try await Curl.get(
                    emulator.authorizeURL
                        + "?client_id=portal-auth-cli&response_type=code&state=s-1&code_challenge=\(challenge)"
                        + "&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A\(port)%2Foauth%2Fcallback",
                    ca: emulator.caCertificatePath)
                #expect(page.status == 200)
                #expect(page.contentType.hasPrefix("text/html"))
                #expect(page.text.contains("<form method=\"post\""))
                #expect(page.text.contains("name=\"redirect_uri\" value=\"http://127.0.0.1:\(port)/oauth/callback\""))
                #expect(page.text.contains("name=\"code_challenge\" value=\"\(challenge)\""))
                #expect(page.text.contains("name=\"state\" value=\"s-1\""))
                #expect(page.text.contains("type=\"password\" name=\"password\""))
                #expect(page.text.contains("value=\"approve\"") && page.text.contains("value=\"deny\""))
            }
            #expect(emulator.counters().authorizeRequests == 2)
        }
    }

    @Test("an unknown client or an unregistered redirect URI gets an error page, never a redirect")
    func untrustedRequestsAreNotRedirected() async throws {
        try await withEmulator { emulator in
            let unknown = try await emulator.submitSignIn(emulator.authorizeParameters(clientID: "no-such-app"))
            #expect(unknown.status == 400)
            #expect(unknown.location.isEmpty)
            #expect(unknown.text.contains("Invalid client_id"))
            for redirect in [
                "https://evil.example/oauth/callback", "http://127.0.0.1:8080/other/path",
                "http://10.0.0.1/oauth/callback",
            ] {
                let answer = try await emulator.submitSignIn(emulator.authorizeParameters(redirect: redirect))
                #expect(answer.status == 400, "\(redirect)")
                #expect(answer.location.isEmpty)
                #expect(answer.text.contains("Invalid redirect_uri"))
            }
        }
    }

    @Test("with f=json, an unknown client or redirect URI gets ArcGIS's JSON error at once, counted apart")
    func untrustedRequestsAsJSON() async throws {
        try await withEmulator { emulator in
            let unknown = try await emulator.submitSignIn(
                emulator.authorizeParameters(clientID: "no-such-app") + [("f", "json")])
            #expect(unknown.status == 400)
            #expect(unknown.location.isEmpty)
            #expect(unknown.text.contains("\"error_description\":\"Invalid client_id\""), "\(unknown.text)")
            let redirect = try await emulator.submitSignIn(
                emulator.authorizeParameters(redirect: "https://evil.example/cb") + [("f", "JSON")])
            #expect(redirect.status == 400 && redirect.text.contains("Invalid redirect_uri"))
            #expect(emulator.counters().authorizeJSONRequests == 2)
            #expect(emulator.counters().authorizeRequests == 0)
        }
    }

    @Test("a public app must use PKCE with S256")
    func pkceIsRequired() async throws {
        try await withEmulator { emulator in
            let missing = try await emulator.submitSignIn(emulator.authorizeParameters(challenge: nil))
            #expect(missing.status == 302)
            #expect(queryItems(missing.location)["error"] == "invalid_request")
            #expect(queryItems(missing.location)["state"] == "s-123")
            #expect(queryItems(missing.location)["code"] == nil)
            let plain = try await emulator.submitSignIn(
                emulator.authorizeParameters(challenge: nil) + [
                    ("code_challenge", verifier), ("code_challenge_method", "plain"),
                ])
            #expect(queryItems(plain.location)["error"] == "invalid_request")
            #expect(queryItems(plain.location)["error_description"]?.contains("S256") == true)
        }
    }

    @Test("a wrong password shows the form again; deny redirects with access_denied and the state")
    func wrongPasswordAndDeny() async throws {
        try await withEmulator { emulator in
            let wrong = try await emulator.submitSignIn(emulator.authorizeParameters(), password: "nope")
            #expect(wrong.status == 200)
            #expect(wrong.location.isEmpty)
            #expect(wrong.text.contains("Invalid username or password."))
            #expect(wrong.text.contains("<form"))
            let denied = try await emulator.submitSignIn(emulator.authorizeParameters(), action: "deny")
            #expect(denied.status == 302)
            #expect(denied.location.hasPrefix(loopback + "?"))
            let items = queryItems(denied.location)
            #expect(items["error"] == "access_denied")
            #expect(items["error_description"]?.isEmpty == false)
            #expect(items["state"] == "s-123")
            #expect(items["code"] == nil)
        }
    }

    @Test("approve redirects with code and state; the code with its verifier gives access and refresh tokens")
    func codeForTokens() async throws {
        try await withEmulator { emulator in
            let answer = try await emulator.submitSignIn(emulator.authorizeParameters())
            #expect(answer.status == 302)
            #expect(answer.location.hasPrefix(loopback + "?"))
            #expect(queryItems(answer.location)["state"] == "s-123")
            let code = try #require(queryItems(answer.location)["code"])
            let tokens = try await emulator.redeemCode(code)
            let access = try #require(tokens["access_token"] as? String)
            #expect((tokens["expires_in"] as? NSNumber)?.intValue == 1800)
            #expect(tokens["username"] as? String == "alice")
            #expect(tokens["ssl"] as? Bool == true)
            #expect(tokens["refresh_token"] is String)
            #expect((tokens["refresh_token_expires_in"] as? NSNumber)?.intValue == 1_209_600)
            #expect(try await emulator.whoIs(access).username == "alice")
            #expect(emulator.counters().authorizationCodeGrants == 1)
        }
    }

    @Test("expiration at authorize time bounds the refresh token's lifetime")
    func expirationBoundsRefreshToken() async throws {
        try await withEmulator { emulator in
            let answer = try await emulator.submitSignIn(emulator.authorizeParameters() + [("expiration", "120")])
            let code = try #require(queryItems(answer.location)["code"])
            let tokens = try await emulator.redeemCode(code)
            #expect((tokens["refresh_token_expires_in"] as? NSNumber)?.intValue == 7200)
        }
    }

    @Test("a wrong or missing verifier, a reused code, an expired code and a different redirect_uri are refused")
    func codeRedemptionRules() async throws {
        try await withEmulator { emulator in
            let wrongVerifier = try await emulator.redeemCode(
                try await emulator.authorizationCode(), verifier: String(repeating: "x", count: 43))
            #expect(oauthError(wrongVerifier) == (400, "invalid_grant"))

            let noVerifier = try await emulator.redeemCode(try await emulator.authorizationCode(), verifier: nil)
            #expect(oauthError(noVerifier) == (400, "invalid_request"))

            let code = try await emulator.authorizationCode()
            #expect(try await emulator.redeemCode(code)["access_token"] is String)
            #expect(oauthError(try await emulator.redeemCode(code)) == (400, "invalid_grant"))

            // A refused attempt uses the code up, too.
            let burnt = try await emulator.authorizationCode()
            _ = try await emulator.redeemCode(burnt, verifier: String(repeating: "y", count: 43))
            #expect(oauthError(try await emulator.redeemCode(burnt)) == (400, "invalid_grant"))

            let expiring = try await emulator.authorizationCode()
            emulator.expireAuthorizationCodes()
            let expired = try await emulator.redeemCode(expiring)
            #expect(oauthError(expired) == (400, "invalid_grant"))
            #expect(
                (expired["error"] as? [String: Any])?["error_description"] as? String == "Authorization code expired")

            let moved = try await emulator.redeemCode(
                try await emulator.authorizationCode(),
                redirect: "http://127.0.0.1:49153/oauth/callback")
            #expect(oauthError(moved) == (400, "invalid_grant"))

            let counters = emulator.counters()
            #expect(counters.authorizationCodeGrants == 1)
            #expect(counters.oauthTokenErrors == 7)
        }
    }

    @Test("codes live authorizationCodeLifetimeSeconds")
    func codeLifetime() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.authorizationCodeLifetimeSeconds = 600
        try await withEmulator(configuration) { emulator in
            let code = try await emulator.authorizationCode()
            emulator.clock.advance(by: .seconds(601))
            #expect(oauthError(try await emulator.redeemCode(code)) == (400, "invalid_grant"))
            // Redeemed well within its 600 s, however loaded the machine is.
            let fresh = try await emulator.authorizationCode()
            #expect(try await emulator.redeemCode(fresh)["access_token"] is String)
        }
    }

    @Test("out-of-band: approval page titled SUCCESS code=..., and DENIED on deny")
    func outOfBand() async throws {
        try await withEmulator { emulator in
            let answer = try await emulator.submitSignIn(emulator.authorizeParameters(redirect: oob))
            #expect(answer.status == 302)
            #expect(answer.location.hasPrefix(emulator.portalURL + "/sharing/rest/oauth2/approval?"))
            let page = try await Curl.get(answer.location, ca: emulator.caCertificatePath)
            let code = try #require(queryItems(answer.location)["code"])
            #expect(page.text.contains("<title>SUCCESS code=\(code)</title>"))
            #expect(try await emulator.redeemCode(code, redirect: oob)["access_token"] is String)

            let denied = try await emulator.submitSignIn(emulator.authorizeParameters(redirect: oob), action: "deny")
            let deniedPage = try await Curl.get(denied.location, ca: emulator.caCertificatePath)
            #expect(deniedPage.text.contains("<title>DENIED error=access_denied</title>"))
        }
    }

    @Test("refresh_token gives a new access token; exchange_refresh_token a new refresh token, the old one dead")
    func refreshAndExchange() async throws {
        try await withEmulator { emulator in
            let first = try await emulator.redeemCode(try await emulator.authorizationCode())
            let refresh = try #require(first["refresh_token"] as? String)
            let refreshed = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"), ("refresh_token", refresh),
            ])
            let access = try #require(refreshed["access_token"] as? String)
            #expect(access != first["access_token"] as? String)
            #expect(refreshed["refresh_token"] == nil)
            #expect(refreshed["username"] as? String == "alice")
            #expect(try await emulator.whoIs(access).username == "alice")

            let otherApp = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-app"), ("refresh_token", refresh),
            ])
            #expect(oauthError(otherApp).1 == "invalid_grant")

            let exchanged = try await emulator.redeem([
                ("grant_type", "exchange_refresh_token"), ("client_id", "portal-auth-cli"),
                ("redirect_uri", loopback), ("refresh_token", refresh),
            ])
            let newRefresh = try #require(exchanged["refresh_token"] as? String)
            #expect(newRefresh != refresh)
            #expect(exchanged["access_token"] is String)
            let old = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"), ("refresh_token", refresh),
            ])
            #expect(oauthError(old) == (498, "invalid_grant"))
            let counters = emulator.counters()
            #expect(counters.refreshTokenGrants == 1)
            #expect(counters.exchangeRefreshTokenGrants == 1)
        }
    }

    @Test("an expired refresh token gets 498 refresh_token expired")
    func expiredRefreshToken() async throws {
        try await withEmulator { emulator in
            let seeded = emulator.issueOAuthTokens(
                username: "alice", clientID: "portal-auth-cli", accessLifetimeSeconds: 60, refreshLifetimeSeconds: 600)
            emulator.clock.advance(by: .seconds(601))
            let answer = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"),
                ("refresh_token", seeded.refreshToken),
            ])
            #expect(oauthError(answer) == (498, "invalid_request"))
            #expect((answer["error"] as? [String: Any])?["message"] as? String == "refresh_token expired")
        }
    }

    @Test("client_credentials needs the right secret and honours expiration")
    func clientCredentials() async throws {
        try await withEmulator { emulator in
            let good = try await emulator.redeem([
                ("grant_type", "client_credentials"), ("client_id", "portal-auth-app"),
                ("client_secret", "app-secret-456"), ("expiration", "30"),
            ])
            let token = try #require(good["access_token"] as? String)
            #expect((good["expires_in"] as? NSNumber)?.intValue == 1800)
            #expect(good["refresh_token"] == nil)
            let me = try await Curl.get(
                emulator.portalURL + "/sharing/rest/portals/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(me.errorCode == nil)

            let wrong = try await emulator.redeem([
                ("grant_type", "client_credentials"), ("client_id", "portal-auth-app"), ("client_secret", "nope"),
            ])
            #expect(oauthError(wrong) == (400, "invalid_client"))
            let message = try #require((wrong["error"] as? [String: Any])?["message"] as? String)
            #expect(!message.contains("nope"))
            let publicApp = try await emulator.redeem([
                ("grant_type", "client_credentials"), ("client_id", "portal-auth-cli"), ("client_secret", "x"),
            ])
            #expect(oauthError(publicApp) == (400, "invalid_client"))
            let unknownGrant = try await emulator.redeem([("grant_type", "password"), ("client_id", "portal-auth-cli")])
            #expect(oauthError(unknownGrant) == (400, "unsupported_grant_type"))
            #expect(emulator.counters().clientCredentialsGrants == 1)
        }
    }

    @Test(
        "revokeToken: a refresh token takes its access tokens along; unknown tokens succeed; generateToken tokens stay")
    func revoke() async throws {
        try await withEmulator { emulator in
            let tokens = try await emulator.redeemCode(try await emulator.authorizationCode())
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            let revokeURL = emulator.portalURL + "/sharing/rest/oauth2/revokeToken"
            let answer = try await Curl.post(
                revokeURL,
                form: [
                    ("auth_token", refresh), ("client_id", "portal-auth-cli"),
                    ("token_type_hint", "refresh_token"), ("f", "json"),
                ], ca: emulator.caCertificatePath)
            #expect(try answer.json()["success"] as? Bool == true)
            #expect(try await emulator.whoIs(access).code == 498)
            #expect(emulator.isRevoked(refresh) && emulator.isRevoked(access))
            let again = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"), ("refresh_token", refresh),
            ])
            #expect(oauthError(again).0 == 498)

            let unknown = try await Curl.post(
                revokeURL, form: [("auth_token", "never-issued"), ("client_id", "portal-auth-cli"), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(try unknown.json()["success"] as? Bool == true)

            let portalToken = try await emulator.portalToken()
            _ = try await Curl.post(
                revokeURL, form: [("auth_token", portalToken), ("client_id", "portal-auth-cli"), ("f", "json")],
                ca: emulator.caCertificatePath)
            #expect(try await emulator.whoIs(portalToken).username == "alice")
            #expect(emulator.counters().revokeRequests == 3)
        }
    }

    @Test("the token endpoint wants POST over HTTPS")
    func tokenEndpointTransport() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.httpPort = 0
        try await withEmulator(configuration) { emulator in
            let get = try await Curl.get(
                emulator.oauthTokenURL + "?grant_type=client_credentials&client_id=portal-auth-app&f=json",
                ca: emulator.caCertificatePath)
            #expect(get.errorCode == 405)
            let httpURL = "http://127.0.0.1:\(try #require(emulator.httpPort))/portal/sharing/rest/oauth2/token"
            let plain = try await Curl.post(
                httpURL,
                form: [
                    ("grant_type", "client_credentials"), ("client_id", "portal-auth-app"),
                    ("client_secret", "app-secret-456"), ("f", "json"),
                ], ca: nil)
            #expect(plain.errorCode == 403)
            #expect(emulator.counters().clientCredentialsGrants == 0)
        }
    }

    @Test("admin endpoints seed OAuth tokens, expire codes and revoke refresh tokens")
    func adminEndpoints() async throws {
        try await withEmulator { emulator in
            let seeded = try await Curl.post(
                emulator.baseURL + "/emulator/oauth-tokens",
                form: [("username", "alice"), ("clientId", "portal-auth-cli"), ("accessLifetimeSeconds", "90")],
                ca: emulator.caCertificatePath
            ).json()
            let access = try #require(seeded["access_token"] as? String)
            let refresh = try #require(seeded["refresh_token"] as? String)
            #expect((seeded["expires_in"] as? NSNumber)?.intValue == 90)
            #expect(try await emulator.whoIs(access).username == "alice")
            let bad = try await Curl.post(
                emulator.baseURL + "/emulator/oauth-tokens",
                form: [("username", "mallory"), ("clientId", "portal-auth-cli")],
                ca: emulator.caCertificatePath)
            #expect(bad.status == 400)

            let code = try await emulator.authorizationCode()
            _ = try await Curl.post(
                emulator.baseURL + "/emulator/expire-codes", form: [], ca: emulator.caCertificatePath)
            #expect(oauthError(try await emulator.redeemCode(code)).1 == "invalid_grant")

            _ = try await Curl.post(
                emulator.baseURL + "/emulator/oauth-access-token-lifetime", form: [("seconds", "77")],
                ca: emulator.caCertificatePath)
            let short = try await emulator.redeem([
                ("grant_type", "refresh_token"), ("client_id", "portal-auth-cli"), ("refresh_token", refresh),
            ])
            #expect((short["expires_in"] as? NSNumber)?.intValue == 77)
            let zero = try await Curl.post(
                emulator.baseURL + "/emulator/oauth-access-token-lifetime", form: [("seconds", "0")],
                ca: emulator.caCertificatePath)
            #expect(zero.status == 400)

            _ = try await Curl.post(
                emulator.baseURL + "/emulator/revoke-refresh-tokens", form: [], ca: emulator.caCertificatePath)
            #expect(emulator.isRevoked(refresh))
            #expect(try await emulator.whoIs(access).code == 498)
        }
    }
}
