import Foundation
import Testing

@testable import PortalAuth

/// PKCE's verifiers, the redirect's reading and checking, and configuration files: no browser,
/// no listener, no server.
@Suite struct PKCEVerifierTests {
    @Test func freshVerifiersAreLongRandomAndURLSafe() throws {
        let a = try PKCE(), b = try PKCE()
        #expect(a.codeVerifier != b.codeVerifier)
        #expect((43...128).contains(a.codeVerifier.count))
        #expect(a.codeVerifier.allSatisfy { $0.isLetter || $0.isNumber || "-._~".contains($0) })
        #expect(try PKCE.makeState() != PKCE.makeState())
    }

    @Test(arguments: ["short", String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+"])
    func badVerifiersAreRefused(_ verifier: String) {
        #expect(throws: PortalAuthError.self) { try PKCE(verifier: verifier) }
    }
}

@Suite struct AuthorizationRedirectTests {
    @Test func classification() throws {
        #expect(try AuthorizationRedirect("urn:ietf:wg:oauth:2.0:oob") == .outOfBand)
        #expect(
            try AuthorizationRedirect("http://127.0.0.1/oauth/callback")
                == .loopback(host: "127.0.0.1", port: nil, path: "/oauth/callback"))
        #expect(
            try AuthorizationRedirect("http://127.0.0.1:8765/cb")
                == .loopback(host: "127.0.0.1", port: 8765, path: "/cb"))
        #expect(
            try AuthorizationRedirect("http://localhost:9000") == .loopback(host: "localhost", port: 9000, path: "/"))
        #expect(try AuthorizationRedirect("https://127.0.0.1/cb") == .custom(URL(string: "https://127.0.0.1/cb")!))
        #expect(
            try AuthorizationRedirect("https://app.example.com/cb")
                == .custom(URL(string: "https://app.example.com/cb")!))
        #expect(throws: PortalAuthError.self) { try AuthorizationRedirect("not a url") }
        #expect(
            AuthorizationRedirect.loopback(host: "127.0.0.1", port: nil, path: "/cb").redirectURI(boundPort: 4321)
                == "http://127.0.0.1:4321/cb")
    }

    @Test func pastedAnswers() {
        #expect(AuthorizationCodeFlow.parsePasted("abc123\n", expectURL: false) == ["code": "abc123"])
        #expect(AuthorizationCodeFlow.parsePasted("SUCCESS code=abc123", expectURL: false) == ["code": "abc123"])
        #expect(
            AuthorizationCodeFlow.parsePasted("https://app.example.com/cb?code=x%2By&state=s1", expectURL: true) == [
                "code": "x+y", "state": "s1",
            ])
        #expect(
            AuthorizationCodeFlow.parsePasted(
                "https://app.example.com/cb?error=access_denied&state=s1", expectURL: true)["error"] == "access_denied")
        #expect(AuthorizationCodeFlow.parsePasted("", expectURL: false).isEmpty)
    }

    @Test func answersAreChecked() throws {
        let ok = try AuthorizationCodeFlow.check(
            ["code": "c", "state": "s"], state: "s", expectState: true, server: "h:443/p", redirectURI: "r",
            verifier: "v")
        #expect(ok.code == "c" && ok.redirectURI == "r" && ok.codeVerifier == "v")
        let denied = #expect(throws: PortalAuthError.self) {
            try AuthorizationCodeFlow.check(
                ["error": "access_denied", "error_description": "The user denied your request.", "state": "s"],
                state: "s", expectState: true, server: "h", redirectURI: "r", verifier: "v")
        }
        #expect(denied?.code == .authenticationFailed)
        #expect(denied?.cause == .oauth(error: "access_denied", description: "The user denied your request."))
        let tampered = #expect(throws: PortalAuthError.self) {
            try AuthorizationCodeFlow.check(
                ["code": "c", "state": "other"], state: "s", expectState: true, server: "h", redirectURI: "r",
                verifier: "v")
        }
        #expect(tampered?.code == .authenticationFailed && tampered?.cause == .other("state mismatch"))
        #expect(throws: PortalAuthError.self) {
            try AuthorizationCodeFlow.check(
                ["state": "s"], state: "s", expectState: true, server: "h", redirectURI: "r", verifier: "v")
        }
    }
}

@Suite struct ConfigurationFileTests {
    func file(_ json: String) throws -> ConfigurationFile {
        try ConfigurationFile(data: Array(json.utf8), source: "test.json")
    }

    @Test func problemsNameTheKey() throws {
        #expect(throws: PortalAuthError.self) { try file("not json") }
        #expect(throws: PortalAuthError.self) { try file("[1]") }
        let f = try file(
            #"{"a":"x","b":3,"c":[],"d":["ok"],"e":"http://example.com","g":"http://127.0.0.1:9/x","h":true}"#)
        let unknown = #expect(throws: PortalAuthError.self) { try f.requireOnlyKeys(["a", "b"]) }
        #expect(unknown?.remedy == .fixConfiguration(file: "test.json", key: "c"))
        #expect(try f.string("a") == "x")
        for (key, read) in [("b", { try f.string("b") }), ("z", { try f.string("z") })] as [(String, () throws -> Any)]
        {
            let error = #expect(throws: PortalAuthError.self) { try read() }
            #expect(
                error
                    == PortalAuthError(
                        .invalidConfiguration, "", remedy: .fixConfiguration(file: "test.json", key: key)))
        }
        #expect(
            (#expect(throws: PortalAuthError.self) { try f.strings("c", nonEmpty: true) })?.remedy
                == .fixConfiguration(file: "test.json", key: "c"))
        #expect(try f.strings("d") == ["ok"])
        #expect(
            (#expect(throws: PortalAuthError.self) { try f.httpsURL("e") })?.remedy
                == .fixConfiguration(file: "test.json", key: "e"))
        #expect(try f.httpsURL("g").port == 9)
        #expect(try f.optionalBool("h") == true)
        #expect(try f.optionalPositiveInteger("b") == 3)
    }
}

/// The browser a sign-in page opens in, from `$BROWSER` (no browser is started).
@Suite struct SystemBrowserCommandTests {
    @Test func browserVariable() {
        let url = URL(string: "https://p.example/authorize?a=1")!
        #expect(SystemBrowser(browserVariable: nil).commands(for: url) == [["xdg-open", url.absoluteString]])
        #expect(SystemBrowser(browserVariable: "firefox").commands(for: url) == [["firefox", url.absoluteString]])
        #expect(
            SystemBrowser(browserVariable: "w3m -o x %s:lynx").commands(for: url) == [
                ["w3m", "-o", "x", url.absoluteString], ["lynx", url.absoluteString],
            ])
    }
}
