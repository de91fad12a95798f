import Foundation
import PortalEmulator
import TestSupport
import Testing

/// What the ArcGIS API for Python (arcgis 2.4) reads from the sign-in page: the first `{...}` on a
/// line, as `re.search(r"\{.*\}", page)` finds it, parsed as JSON.
private func oAuthInfo(_ page: String) throws -> [String: Any] {
    let line = try #require(page.split(separator: "\n").first { $0.contains("{") })
    let open = try #require(line.firstIndex(of: "{"))
    let close = try #require(line.lastIndex(of: "}"))
    let text = String(line[open...close])
    #expect(line.contains("var oAuthInfo = \(text);"))
    return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// The parameters of a URL's fragment.
private func fragmentItems(_ url: String) -> [String: String] {
    guard let hash = url.firstIndex(of: "#") else { return [:] }
    return queryItems("x:/?" + url[url.index(after: hash)...])
}

extension PortalEmulator {
    /// GET authorize as `GIS(url, username, password)` does: no PKCE, `expiration`, `allow_verification`.
    func pythonAuthorize(
        responseType: String, redirect: String, clientID: String = "pythonapi"
    ) async throws
        -> CurlResult
    {
        try await Curl.post(
            portalURL + "/sharing/rest/oauth2/authorize",
            form: [
                ("client_id", clientID), ("response_type", responseType), ("redirect_uri", redirect),
                ("state", "py-state-1"), ("expiration", "600"), ("allow_verification", "false"), ("style", "dark"),
                ("locale", "en-US"),
            ], ca: caCertificatePath, extra: ["-G"])
    }

    /// POST `/sharing/oauth2/signin` with the page's `oauth_state`.
    func pythonSignIn(_ state: String, password: String = "alice-pass-123") async throws -> CurlResult {
        try await Curl.post(
            portalURL + "/sharing/oauth2/signin",
            form: [("oauth_state", state), ("username", "alice"), ("password", password), ("expiration", "600")],
            ca: caCertificatePath)
    }
}

@Suite("The ArcGIS API for Python's sign-in")
struct PythonClientTests {
    @Test("pythonapi, response_type=token: oAuthInfo's oauth_state, signin, the token in the redirect fragment")
    func implicitSignIn() async throws {
        try await withEmulator { emulator in
            let page = try await emulator.pythonAuthorize(responseType: "token", redirect: emulator.baseURL)
            #expect(page.status == 200)
            #expect(!page.text.contains("Invalid redirect_uri"))
            let info = try oAuthInfo(page.text)
            let state = try #require(info["oauth_state"] as? String)
            #expect(info["messages"] == nil)

            let wrong = try await emulator.pythonSignIn(state, password: "nope")
            #expect(wrong.status == 200)
            #expect(try oAuthInfo(wrong.text)["messages"] as? [String] == ["Invalid username or password."])

            let signedIn = try await emulator.pythonSignIn(state)
            #expect(signedIn.status == 302)
            #expect(signedIn.location.hasPrefix(emulator.baseURL))  // curl shows it as BASE/#...
            #expect(signedIn.location.contains("#access_token="))
            let fragment = fragmentItems(signedIn.location)
            #expect(fragment["state"] == "py-state-1")
            #expect(fragment["expires_in"] == "36000")
            #expect(fragment["username"] == "alice")
            let token = try #require(fragment["access_token"])
            #expect(try await emulator.whoIs(token).username == "alice")

            let again = try await emulator.pythonSignIn(state)
            #expect(again.status == 400)
            #expect(again.text.contains("Invalid oauth_state"))
        }
    }

    @Test("pythonapi, response_type=code, oob, no PKCE: approval page SUCCESS code=, redeemed without a verifier")
    func codeSignIn() async throws {
        try await withEmulator { emulator in
            let oob = "urn:ietf:wg:oauth:2.0:oob"
            let page = try await emulator.pythonAuthorize(responseType: "code", redirect: oob)
            let state = try #require(try oAuthInfo(page.text)["oauth_state"] as? String)
            let signedIn = try await emulator.pythonSignIn(state)
            #expect(signedIn.status == 302)
            #expect(signedIn.location.hasPrefix(emulator.portalURL + "/sharing/rest/oauth2/approval?"))
            let code = try #require(queryItems(signedIn.location)["code"])
            let approval = try await Curl.get(signedIn.location, ca: emulator.caCertificatePath)
            #expect(approval.text.contains("<title>SUCCESS code=\(code)</title>"))
            let tokens = try await emulator.redeem([
                ("grant_type", "authorization_code"), ("client_id", "pythonapi"), ("code", code),
                ("redirect_uri", oob), ("expiration", "20160"),
            ])
            #expect(tokens["refresh_token"] is String)
            #expect(try await emulator.whoIs(try #require(tokens["access_token"] as? String)).username == "alice")
        }
    }

    @Test("arcgisonline is built in too; other hosts are not its redirect URIs; other public apps still need PKCE")
    func builtInAppsAndLimits() async throws {
        try await withEmulator { emulator in
            let online = try await emulator.pythonAuthorize(
                responseType: "token", redirect: emulator.baseURL + "/home", clientID: "arcgisonline")
            #expect(try oAuthInfo(online.text)["client_id"] as? String == "arcgisonline")
            let elsewhere = try await emulator.pythonAuthorize(
                responseType: "token", redirect: "https://www.arcgis.com")
            #expect(elsewhere.status == 400)
            #expect(elsewhere.text.contains("Invalid redirect_uri"))
            let noPKCE = try await emulator.pythonAuthorize(
                responseType: "code", redirect: "http://127.0.0.1:49152/oauth/callback", clientID: "portal-auth-cli")
            #expect(noPKCE.status == 302)
            #expect(queryItems(noPKCE.location)["error"] == "invalid_request")
        }
    }

    @Test("the sign-in page's oauth_state expires with the emulator's clock")
    func signInStateExpires() async throws {
        try await withEmulator { emulator in
            let page = try await emulator.pythonAuthorize(responseType: "token", redirect: emulator.baseURL)
            let state = try #require(try oAuthInfo(page.text)["oauth_state"] as? String)
            emulator.clock.advance(by: .seconds(16 * 60))
            #expect(try await emulator.pythonSignIn(state).status == 400)
        }
    }
}
