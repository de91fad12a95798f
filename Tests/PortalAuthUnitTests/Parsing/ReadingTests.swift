import Foundation
import PortalAuthOAuthUser
import Testing

@testable import PortalAuth

/// Small pure readings: a stored token, permission bits, ArcGIS Online's hosts, a redirect URL,
/// a portal's list of federated servers.
@Suite struct ReadingTests {
    @Test func aStoredTokenWithALineBreakIsNotReadBack() throws {
        let stored = #"{"accessToken":"abc\r\nX-Injected: 1","isSSLRequired":true}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TokenInfo.self, from: Data(stored.utf8)) }
        let clean = #"{"accessToken":"abc.def-1","isSSLRequired":true}"#
        #expect(try JSONDecoder().decode(TokenInfo.self, from: Data(clean.utf8)).accessToken == "abc.def-1")
    }

    @Test func permissionBitsAreFourOctalDigits() {
        #expect(permissionBits(0o40700) == "0700")
        #expect(permissionBits(0o41777) == "1777")
        #expect(permissionBits(0o100644) == "0644")
        #expect(permissionBits(0o104755) == "4755")
        #expect(permissionBits(0) == "0000")
    }

    @Test func arcGISOnlineOrganizationsUseTheSharedTokenService() {
        #expect(ServerContext.isArcGISOnline("www.arcgis.com"))
        #expect(ServerContext.isArcGISOnline("myorg.maps.arcgis.com"))
        #expect(!ServerContext.isArcGISOnline("evilarcgis.com"))
        #expect(!ServerContext.isArcGISOnline("arcgis.com.evil.net"))
    }

    @Test("a redirect URL the browser cannot come back to (no host) is refused")
    func aConfigurationWithAnUnusableRedirectIsRefused() throws {
        let error = #expect(throws: PortalAuthError.self) {
            try OAuthUserConfiguration(
                portalURL: URL(string: "https://portal.example.com/portal")!, clientID: "app",
                redirectURL: URL(string: "myapp:callback")!)
        }
        #expect(error?.code == .invalidURL)
    }

    @Test func theServersListIsComparedAfterNormalisation() {
        let json = try! JSONValue.parse(
            Array(
                #"{"servers":[{"url":"HTTPS://Host.Example:443/server/","adminUrl":"https://host.example:6443/arcgis/admin/../"},{"url":"not a url"},{"url":"https://a\\@b/x"}]}"#
                    .utf8), source: "test")
        let roots = ArcGISResolver.serverRoots(in: json)
        #expect(roots == ["https://host.example/server", "https://host.example:6443/arcgis"])
        #expect(ArcGISResolver.serverRoots(in: .object(["servers": .string("x")])).isEmpty)
    }
}
