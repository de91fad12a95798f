#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What an ArcGIS portal's `oauth2/token` endpoint answers.
public struct ArcGISOAuthTokenResponse: Sendable, Equatable {
    /// The access token and its expiry (`expires_in` is in seconds).
    public var tokenInfo: TokenInfo
    /// The signed-in user (absent for app tokens).
    public var username: String?
    /// A refresh token, when the grant returns one.
    public var refreshToken: String?
    /// When the refresh token expires, when one was returned.
    public var refreshTokenExpirationDate: Date?
}
