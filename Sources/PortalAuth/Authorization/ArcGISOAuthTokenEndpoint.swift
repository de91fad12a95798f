#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The OAuth 2.0 token and revocation endpoints of an ArcGIS portal
/// (`{portal}/sharing/rest/oauth2/token` and `/revokeToken`), shared by the OAuth user and
/// OAuth application plugins.
public struct ArcGISOAuthTokenEndpoint: Sendable {
    /// The portal.
    public let portal: ServerContext

    /// The endpoint of a portal.
    public init(portal: ServerContext) { self.portal = portal }

    /// `{portal}/sharing/rest/oauth2/token`.
    public var tokenURL: URL { URL(string: portal.url + "/sharing/rest/oauth2/token")! }
    /// `{portal}/sharing/rest/oauth2/revokeToken`.
    public var revokeURL: URL { URL(string: portal.url + "/sharing/rest/oauth2/revokeToken")! }
    /// `{portal}/sharing/rest/oauth2/authorize`.
    public var authorizeURL: URL { URL(string: portal.url + "/sharing/rest/oauth2/authorize")! }

    /// Whether an error from the token endpoint means the grant itself was refused (an invalid,
    /// expired or revoked refresh token or code): the answer is to sign in again, not to retry.
    public static func isRejectedGrant(_ error: PortalAuthError) -> Bool {
        guard error.code == .arcGISError, case .arcGIS(let code, _, let message, _)? = error.cause else { return false }
        return code == 498
            || code == 400 && (message.lowercased().contains("invalid") || message.lowercased().contains("expired"))
    }

    /// POSTs a grant (over HTTPS only) and parses the answer.
    public func requestToken(
        _ parameters: [(String, String)], services: AuthenticationServices
    ) async throws -> ArcGISOAuthTokenResponse {
        let json = try await services.postForm(tokenURL, parameters)
        return try tokenResponse(from: json, at: Date())
    }

    /// Reads the token endpoint's answer (one that is not an ArcGIS error), received at `now`:
    /// the access token must be usable and not expired (``TokenInfo/checkedAsIssued(by:at:)``).
    package func tokenResponse(from json: JSONValue, at now: Date) throws -> ArcGISOAuthTokenResponse {
        guard let token = json["access_token"]?.stringValue, !token.isEmpty else {
            throw PortalAuthError(
                .invalidResponse,
                "\(ServerContext.describe(tokenURL)) answered without an access_token: \(portal) may not be an ArcGIS "
                    + "portal with OAuth 2.0",
                remedy: .checkURL)
        }
        let issuer = ServerContext.describe(tokenURL)
        let expiresIn = try json.lifetime("expires_in", from: issuer, unit: .secondsFromNow)
        let refreshExpiresIn = try json.lifetime("refresh_token_expires_in", from: issuer, unit: .secondsFromNow)
        return ArcGISOAuthTokenResponse(
            tokenInfo: try TokenInfo(
                accessToken: token, expirationDate: expiresIn.map { now.addingTimeInterval($0) },
                isSSLRequired: json["ssl"]?.boolValue ?? true
            ).checkedAsIssued(by: issuer, at: now),
            username: json["username"]?.stringValue,
            // An empty refresh token is none: sending it back could only be refused.
            refreshToken: json["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            refreshTokenExpirationDate: refreshExpiresIn.map { now.addingTimeInterval($0) })
    }

    /// POSTs a revocation (`auth_token`, `client_id`, `token_type_hint`); throws when the portal
    /// does not confirm it.
    public func revoke(_ token: String, hint: String, clientID: String, services: AuthenticationServices) async throws {
        let json = try await services.postForm(
            revokeURL, [("auth_token", token), ("client_id", clientID), ("token_type_hint", hint)])
        guard json["success"]?.boolValue == true else {
            throw PortalAuthError(
                .invalidResponse, "\(ServerContext.describe(revokeURL)) did not confirm the revocation")
        }
    }
}
