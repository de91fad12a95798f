import Foundation
import PortalAuthToken

@testable import PortalAuth

/// The portal and server contexts of the store tests, and a password sign-in's token of a user at
/// the portal (its password not kept).
enum PortalTokens {
    static let portal = try! ServerContext("https://host.example.com/portal")
    static let server = try! ServerContext("https://host.example.com/server")

    static func token(_ user: String, _ value: String) -> TokenCredential {
        TokenCredential(
            serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
            username: user, tokenInfo: TokenInfo(accessToken: value, expirationDate: nil, isSSLRequired: true),
            referer: nil, tokenExpirationMinutes: 60)
    }
}
