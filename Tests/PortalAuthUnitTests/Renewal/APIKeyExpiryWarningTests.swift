import Foundation
import PortalAuth
import Testing

@testable import portal_auth

/// `login --api-key-stdin`'s warning for a key close to its expiry (no terminal, no store).
@Suite struct APIKeyExpiryWarningTests {
    @Test func theExpiryWarningIsForAKeyWithinThirtyDaysOnATerminalOnly() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func key(days: Double?) throws -> APIKeyCredential {
            try APIKeyCredential(
                apiKey: "AAPTk", portalURL: URL(string: "https://host/portal")!,
                expirationDate: days.map { now.addingTimeInterval($0 * 86_400) })
        }
        let soon = APIKeyLogin.expiryWarning(for: try key(days: 10.5), now: now, stderrIsTerminal: true)
        #expect(soon?.contains("expires") == true && soon?.contains("in 10 days") == true)
        #expect(soon?.contains("portal-auth login --api-key-stdin --portal https://host/portal") == true)
        #expect(APIKeyLogin.expiryWarning(for: try key(days: 10), now: now, stderrIsTerminal: false) == nil)
        #expect(APIKeyLogin.expiryWarning(for: try key(days: 31), now: now, stderrIsTerminal: true) == nil)
        #expect(APIKeyLogin.expiryWarning(for: try key(days: nil), now: now, stderrIsTerminal: true) == nil)
        let token = PregeneratedStub(
            tokenInfo: TokenInfo(
                accessToken: "t", expirationDate: now.addingTimeInterval(86_400), isSSLRequired: true))
        #expect(APIKeyLogin.expiryWarning(for: token, now: now, stderrIsTerminal: true) == nil)
    }
}

/// A user credential that is not an API key (for the warning's decision).
private struct PregeneratedStub: ArcGISCredential {
    static let kind = "stub"
    var serverContext: ServerContext { try! ServerContext("https://host/portal") }
    var tokenInfo: TokenInfo
    var username: String? { nil }
}
