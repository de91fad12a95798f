import Foundation
import PortalAuth
import PortalAuthPregeneratedToken
import PortalAuthToken
import Testing

/// Which credentials speak for a portal (``ArcGISCredential/isIssuedByPortal``): only what the
/// portal's own token service issued; a server's token, a pregenerated token and a federated
/// server token speak for none, so what their servers list is never a reason to contact a host.
@Suite struct PortalIssuedCredentialTests {
    @Test(arguments: [
        ("https://host/portal", "https://host/portal/sharing/rest/generateToken", true),
        ("https://host/portal", "https://HOST:443/portal/sharing/generateToken", true),
        ("https://host/arcgis", "https://host/arcgis/tokens/generateToken", false),
        ("https://host/portal", "https://host/portal/sharing/rest/generateToken?x=1", false),
        ("https://host/portal", "https://other/portal/sharing/rest/generateToken", false),
        ("https://host/portal", "http://host/portal/sharing/rest/generateToken", false),
        ("https://host/portal", "https://host/portal/x/sharing/rest/generateToken", false),
        ("https://org.maps.arcgis.com", "https://www.arcgis.com/sharing/rest/generateToken", true),
    ])
    func aPortalsOwnGenerateTokenOnly(context: String, service: String, expected: Bool) throws {
        #expect(try ServerContext(context).isPortalTokenService(URL(string: service)!) == expected)
    }

    @Test func aTokenCredentialSpeaksForThePortalOnlyWhenThePortalIssuedIt() throws {
        let info = TokenInfo(accessToken: "t", expirationDate: nil, isSSLRequired: true)
        func credential(_ context: String, _ service: String) throws -> TokenCredential {
            TokenCredential(
                serverContext: try ServerContext(context), tokenServiceURL: URL(string: service)!, username: "u",
                tokenInfo: info, referer: nil, tokenExpirationMinutes: 60)
        }
        #expect(
            try credential("https://host/portal", "https://host/portal/sharing/rest/generateToken").isIssuedByPortal)
        #expect(try !credential("https://host/arcgis", "https://host/arcgis/tokens/generateToken").isIssuedByPortal)
        let pregenerated = PregeneratedTokenCredential(
            serverContext: try ServerContext("https://host/portal"), tokenInfo: info)
        #expect(!pregenerated.isIssuedByPortal)
    }
}
