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
}
