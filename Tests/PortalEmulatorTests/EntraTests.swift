import Foundation
import PortalEmulator
import TestSupport
import Testing

private let verifier = "dBjftJeZ4CVP-mJ0kfj9O1rGa9WeFyaCeq7kZhNhpkd"
private let challenge = "_gLnVyA80rU7uuTjXDaqqIUlNfCO2dJBb7MEz5KrNRw"
private let callback = "http://127.0.0.1:50123/iap/callback"

private func proxied() -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration.default
    configuration.proxyPort = 0
    return configuration
}

extension PortalEmulator {
    func entraSignIn(
        scope: String = "iap-client/.default offline_access openid profile", action: String = "approve",
        password: String = "alice-pass-123", extra: [(String, String)] = [], clientID: String = "iap-client",
        redirect: String = callback, pkce: Bool = true
    ) async throws -> CurlResult {
        var form = [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirect), ("state", "st-9"),
            ("scope", scope),
        ]
        if pkce { form += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        form += extra + [("username", "alice@example.com"), ("password", password), ("action", action)]
        return try await Curl.post(entraBaseURL + "/authorize", form: form, ca: caCertificatePath)
    }

    func entraToken(_ form: [(String, String)]) async throws -> CurlResult {
        try await Curl.post(entraBaseURL + "/token", form: form, ca: caCertificatePath)
    }

    func entraTokens(scope: String = "iap-client/.default offline_access openid profile") async throws -> [String: Any]
    {
        let answer = try await entraSignIn(scope: scope)
        let code = try #require(queryItems(answer.location)["code"])
        return try await entraToken([
            ("grant_type", "authorization_code"), ("client_id", "iap-client"), ("code", code),
            ("redirect_uri", callback), ("code_verifier", verifier),
        ]).json()
    }

    func throughProxy(_ path: String, bearer: String?) async throws -> CurlResult {
        try await Curl.get(
            proxyBaseURL! + path, ca: caCertificatePath,
            headers: bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }
}

/// The claims of a JWT-shaped token.
func jwtClaims(_ token: String) throws -> [String: Any] {
    var part = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
        of: "_", with: "/")
    while part.count % 4 != 0 { part += "=" }
    let data = try #require(Data(base64Encoded: part))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite("Entra ID and Application Proxy")
struct EntraTests {
    @Test(
        "authorize renders a sign-in form carrying scope and prompt; unknown apps and redirect URIs get an error page")
    func authorizePage() async throws {
        try await withEmulator(proxied()) { emulator in
            let page = try await Curl.get(
                emulator.entraBaseURL + "/authorize?client_id=iap-client&response_type=code&redirect_uri="
                    + "http%3A%2F%2F127.0.0.1%3A4000%2Fiap%2Fcallback&scope=openid%20offline_access&code_challenge=\(challenge)&code_challenge_method=S256&prompt=login",
                ca: emulator.caCertificatePath)
            #expect(page.status == 200)
            #expect(page.text.contains("name=\"scope\" value=\"openid offline_access\""))
            #expect(page.text.contains("name=\"prompt\" value=\"login\""))
            #expect(emulator.counters().entraLastPrompt == "login")
            let unknown = try await emulator.entraSignIn(clientID: "who")
            #expect(unknown.status == 400 && unknown.location.isEmpty)
            #expect(unknown.text.contains("AADSTS700016"))
            let badRedirect = try await emulator.entraSignIn(redirect: "https://evil.example/cb")
            #expect(badRedirect.status == 400 && badRedirect.location.isEmpty)
            #expect(badRedirect.text.contains("AADSTS50011"))
            let wrong = try await emulator.entraSignIn(password: "nope")
            #expect(wrong.status == 200 && wrong.text.contains("Your account or password is incorrect."))
        }
    }

    @Test("PKCE is required; prompt=none cannot succeed; an unknown prompt and deny redirect with errors")
    func authorizeErrors() async throws {
        try await withEmulator(proxied()) { emulator in
            let noPKCE = try await emulator.entraSignIn(pkce: false)
            #expect(queryItems(noPKCE.location)["error"] == "invalid_request")
            let silent = try await emulator.entraSignIn(extra: [("prompt", "none")])
            #expect(queryItems(silent.location)["error"] == "login_required")
            #expect(queryItems(silent.location)["state"] == "st-9")
            let odd = try await emulator.entraSignIn(extra: [("prompt", "always")])
            #expect(queryItems(odd.location)["error"] == "invalid_request")
            let denied = try await emulator.entraSignIn(action: "deny")
            #expect(queryItems(denied.location)["error"] == "access_denied")
            #expect(queryItems(denied.location)["code"] == nil)
        }
    }

    @Test("the code gives an Entra v2 token response; ID token claims name the user")
    func tokenResponse() async throws {
        try await withEmulator(proxied()) { emulator in
            let tokens = try await emulator.entraTokens()
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["scope"] as? String == "iap-client/.default offline_access openid profile")
            #expect((tokens["expires_in"] as? NSNumber)?.intValue == 3600)
            #expect((tokens["ext_expires_in"] as? NSNumber)?.intValue == 3600)
            #expect(tokens["refresh_token"] is String)
            let id = try jwtClaims(try #require(tokens["id_token"] as? String))
            #expect(id["preferred_username"] as? String == "alice@example.com")
            #expect(id["aud"] as? String == "iap-client")
            let access = try jwtClaims(try #require(tokens["access_token"] as? String))
            #expect(access["scp"] as? String == "iap-client/.default offline_access openid profile")
            // Without offline_access and openid: neither a refresh token nor an ID token.
            let bare = try await emulator.entraTokens(scope: "iap-client/.default")
            #expect(bare["refresh_token"] == nil && bare["id_token"] == nil)
            #expect(emulator.counters().entraAuthorizationCodeGrants == 2)
        }
    }

    @Test(
        "errors are Entra-shaped (HTTP 400, error, error_codes, trace_id); codes are single use and checked against the verifier"
    )
    func tokenErrors() async throws {
        try await withEmulator(proxied()) { emulator in
            let answer = try await emulator.entraSignIn()
            let code = try #require(queryItems(answer.location)["code"])
            let wrong = try await emulator.entraToken([
                ("grant_type", "authorization_code"), ("client_id", "iap-client"), ("code", code),
                ("redirect_uri", callback), ("code_verifier", String(repeating: "z", count: 43)),
            ])
            #expect(wrong.status == 400)
            let body = try wrong.json()
            #expect(body["error"] as? String == "invalid_grant")
            #expect((body["error_description"] as? String)?.hasPrefix("AADSTS501481") == true)
            #expect((body["error_codes"] as? [NSNumber])?.map(\.intValue) == [501481])
            #expect(body["timestamp"] is String && body["trace_id"] is String && body["correlation_id"] is String)
            let reused = try await emulator.entraToken([
                ("grant_type", "authorization_code"), ("client_id", "iap-client"), ("code", code),
                ("redirect_uri", callback), ("code_verifier", verifier),
            ])
            #expect(try reused.json()["error"] as? String == "invalid_grant")
            let grant = try await emulator.entraToken([
                ("grant_type", "client_credentials"), ("client_id", "iap-client"),
            ])
            #expect(try grant.json()["error"] as? String == "unsupported_grant_type")
            #expect(emulator.counters().entraTokenErrors == 3)
        }
    }

    @Test("refresh_token rotates the refresh token")
    func refresh() async throws {
        try await withEmulator(proxied()) { emulator in
            let tokens = try await emulator.entraTokens()
            let refresh = try #require(tokens["refresh_token"] as? String)
            let renewed = try await emulator.entraToken([
                ("grant_type", "refresh_token"), ("client_id", "iap-client"), ("refresh_token", refresh),
            ]).json()
            let next = try #require(renewed["refresh_token"] as? String)
            #expect(next != refresh)
            #expect(renewed["access_token"] is String)
            let again = try await emulator.entraToken([
                ("grant_type", "refresh_token"), ("client_id", "iap-client"), ("refresh_token", refresh),
            ])
            #expect(again.status == 400)
            #expect(try again.json()["error"] as? String == "invalid_grant")
            #expect(emulator.counters().entraRefreshTokenGrants == 1)
        }
    }

    @Test("the proxy redirects without a token, answers 401 Bearer to a bad one, and passes access and ID tokens")
    func proxyGate() async throws {
        try await withEmulator(proxied()) { emulator in
            let none = try await emulator.throughProxy("/portal/sharing/rest/portals/self?f=json", bearer: nil)
            #expect(none.status == 302)
            #expect(none.location.hasPrefix(emulator.entraBaseURL + "/authorize?client_id=iap-client"))
            let bad = try await emulator.throughProxy("/portal/sharing/rest/portals/self?f=json", bearer: "forged")
            #expect(bad.status == 401)
            let tokens = try await emulator.entraTokens()
            let access = try #require(tokens["access_token"] as? String)
            let id = try #require(tokens["id_token"] as? String)
            let info = try await emulator.throughProxy("/portal/sharing/rest/info?f=json", bearer: access)
            #expect(info.status == 200)
            // The portal behind the proxy names its proxied address.
            let authInfo = try #require(try info.json()["authInfo"] as? [String: Any])
            #expect(
                authInfo["tokenServicesUrl"] as? String == emulator.proxyBaseURL! + "/portal/sharing/rest/generateToken"
            )
            #expect(
                try await emulator.throughProxy("/portal/sharing/rest/portals/self?f=json", bearer: id).status == 200)
            // The portal behind the proxy may still want its own sign-in.
            let me = try await emulator.throughProxy("/portal/sharing/rest/community/self?f=json", bearer: access)
            #expect(me.errorCode == 499)
            let counters = emulator.counters()
            #expect(counters.proxyRequestsByToken["none"] == 1)
            #expect(counters.proxyRequestsByToken["rejected"] == 1)
            #expect(counters.proxyRequestsByToken["access"] == 2)
            #expect(counters.proxyRequestsByToken["id"] == 1)

            emulator.expireEntraTokens()
            #expect(try await emulator.throughProxy("/portal/sharing/rest/info?f=json", bearer: access).status == 401)
        }
    }

    @Test("an Entra token sent to the portal's own address is counted; logout shows a page")
    func tokenOutsideTheProxyAndLogout() async throws {
        try await withEmulator(proxied()) { emulator in
            let tokens = try await emulator.entraTokens()
            let access = try #require(tokens["access_token"] as? String)
            _ = try await Curl.get(
                emulator.portalURL + "/sharing/rest/info?f=json", ca: emulator.caCertificatePath,
                headers: ["Authorization": "Bearer \(access)"])
            #expect(emulator.counters().entraTokensOutsideProxy == 1)
            let logout = try await Curl.get(emulator.entraBaseURL + "/logout", ca: emulator.caCertificatePath)
            #expect(logout.status == 200 && logout.text.contains("<title>Signed out</title>"))
            #expect(emulator.counters().entraLogouts == 1)
        }
    }

    @Test("no proxy listener unless asked for")
    func proxyIsOptional() async throws {
        try await withEmulator { emulator in
            #expect(emulator.proxyPort == nil && emulator.proxyBaseURL == nil)
        }
    }
}
