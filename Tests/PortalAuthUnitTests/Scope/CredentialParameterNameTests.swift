import PortalAuth
import Testing

/// The one reading of a parameter name as a credential (serve's query, whole forms and streamed
/// forms): every spelling some reader takes as `token` or `access_token` is one, and names that
/// only contain the word are not.
@Suite struct CredentialParameterNameTests {
    /// Names as a form reader gives them (percent-decoded once).
    @Test(arguments: [
        "token", "TOKEN", "Token", "access_token", "ACCESS_TOKEN", "access.token", "access token",
        "token\0", "token\0x", "token ", " token", "token\t", "token.", "token..", "token_", "Token[]", "token[a]",
        "%74oken", "%u0074oken", "%U0074OKEN", "\u{FF54}oken", "to\u{212A}en", "tok\u{0435}n",
        String(repeating: "a", count: 257),
    ])
    func credentialSpellings(name: String) {
        #expect(CredentialParameterName.isCredential(name), "\(name.debugDescription)")
    }

    @Test(arguments: [
        "f", "where", "outFields", "tokenType", "tokens", "returnToken", "token_type", "mytoken", "t.o.k.e.n",
        "to ken", "", "%zz", "%u00", "[token]", String(repeating: "a", count: 256),
    ])
    func otherNames(name: String) {
        #expect(!CredentialParameterName.isCredential(name), "\(name.debugDescription)")
    }

    /// A name of lower-case letters and digits alone is looked up as it is; with a `[` after it,
    /// the same name goes the lenient reader's whole way (which reads up to the `[`): the two agree.
    @Test func theShortCutAgreesWithTheLenientReader() {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var names = ["token", "tokens", "access", "accesstoken", "t0ken", "", "a"]
        for _ in 0..<500 {
            let length = Int.random(in: 1...12, using: &generator)
            names.append(String((0..<length).map { _ in letters.randomElement(using: &generator)! }))
        }
        for name in names {
            #expect(
                CredentialParameterName.isCredential(name) == CredentialParameterName.isCredential(name + "["),
                "\(name)")
        }
        #expect(CredentialParameterName.isCredential("token"))
    }
}
