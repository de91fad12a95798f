import Foundation
import Testing

@testable import PortalAuth

/// An OAuth token endpoint's answer, read without a server.
@Suite struct OAuthTokenAnswerTests {
    func answer(_ text: String) throws -> ArcGISOAuthTokenResponse {
        let endpoint = ArcGISOAuthTokenEndpoint(portal: try ServerContext("https://host.example.com/portal"))
        return try endpoint.tokenResponse(from: try JSONValue.parse(Array(text.utf8), source: "test"), at: Date())
    }

    @Test func anEmptyRefreshTokenIsNone() throws {
        let base = #"{"access_token": "abc", "expires_in": 1800, "username": "alice""#
        #expect(try answer(base + #", "refresh_token": ""}"#).refreshToken == nil)
        #expect(try answer(base + "}").refreshToken == nil)
        #expect(try answer(base + #", "refresh_token": "r1"}"#).refreshToken == "r1")
    }
}
