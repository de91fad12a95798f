import Foundation
import PortalAuth
import Testing

/// What the bundled plugins use from the core, as a plugin outside the package sees it: public
/// API only (no `@testable`).
@Suite struct PluginAPITests {
    @Test func formEncodingEscapesEverythingButTheUnreservedCharacters() {
        #expect(FormEncoding.escape("a-b_c.d~e") == "a-b_c.d~e")
        #expect(FormEncoding.escape("a b&c=d+é") == "a%20b%26c%3Dd%2B%C3%A9")
    }

    @Test func formEncodingKeepsTheParametersInOrder() {
        #expect(FormEncoding.encode([("b", "2"), ("a", "1 1")]) == "b=2&a=1%201")
    }

    @Test(arguments: ["token", "password", "client_secret", "code", "code_verifier", "refresh_token", "access_token"])
    func urlRedactionHidesSecretParameters(_ name: String) {
        let redacted = URLRedaction.redact("https://h.example/p?f=json&\(name)=s3cret&x=1")
        #expect(redacted == "https://h.example/p?f=json&\(name)=***&x=1")
    }

    @Test func urlRedactionLeavesEverythingElse() {
        #expect(URLRedaction.redact("https://h.example/p") == "https://h.example/p")
        #expect(
            URLRedaction.redact("https://h.example/p?where=1%3D1&f=json") == "https://h.example/p?where=1%3D1&f=json")
    }

    @Test func aLifetimeIsANumberOrADecimalString() throws {
        let answer = try JSONValue.parse(
            Array(#"{"a":1800,"b":"1800.5","c":null}"#.utf8), source: "test")
        #expect(try answer.lifetime("a", from: "test") == 1800)
        #expect(try answer.lifetime("b", from: "test") == 1800.5)
        #expect(try answer.lifetime("c", from: "test") == nil)
        #expect(try answer.lifetime("missing", from: "test") == nil)
    }

    @Test(arguments: [#""soon""#, #""nan""#, "true", #""1e3""#, "[]"])
    func anyOtherLifetimeIsRefused(_ value: String) throws {
        let answer = try JSONValue.parse(Array(#"{"expires":\#(value)}"#.utf8), source: "test")
        #expect(throws: PortalAuthError.self) { try answer.lifetime("expires", from: "the token service") }
    }

    /// The challenge is BASE64URL(SHA-256(verifier)) without padding (the value computed with
    /// Python's hashlib), for a verifier of every unreserved character class.
    @Test func pkceChallengeOfAVerifierWithEveryUnreservedCharacter() throws {
        let pkce = try PKCE(verifier: "abcdefghijklmnopqrstuvwxyz0123456789-._~ABCDEFG")
        #expect(pkce.codeChallenge == "TDp3C-wPo3aKDK1Bg-ukP78nZ9YiqUD2ToRD96HoaHU")
        #expect(pkce.codeChallengeMethod == "S256")
    }

    @Test func statesAreRandomAndURLSafe() throws {
        let a = try PKCE.makeState(), b = try PKCE.makeState()
        #expect(a != b && a.count >= 16)
        #expect(a.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) })
    }

    @Test func aTransportChallengeErrorCarriesWhatToReport() {
        let reported = PortalAuthError(.tlsFailure, "the server asked for a client certificate", remedy: .none)
        let error = TransportChallengeError(
            challenge: .clientCertificate(host: "h.example", port: 443, message: "asked"), error: reported)
        #expect(error.error == reported)
    }
}
