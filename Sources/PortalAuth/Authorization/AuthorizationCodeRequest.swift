import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What to ask an authorization server for: the authorization-code grant with PKCE (S256).
///
/// Shared by every plugin that signs a user in through a browser: OAuth user credentials
/// (ArcGIS portals) and IAP credentials (Microsoft Entra ID).
public struct AuthorizationCodeRequest: Sendable {
    /// The authorization endpoint, for example `{portal}/sharing/rest/oauth2/authorize`.
    public var authorizeURL: URL
    /// The registered client (app) ID.
    public var clientID: String
    /// Where the browser comes back to.
    public var redirect: AuthorizationRedirect
    /// Scopes, sent space-separated as `scope` when not empty.
    public var scopes: [String]
    /// The OpenID Connect `prompt` (`login`, `consent`, …); nil or empty sends none.
    public var prompt: String?
    /// Further parameters (ArcGIS's `expiration`, for example).
    public var extraParameters: [(String, String)]
    /// How long to wait for the browser to come back, in seconds.
    public var timeout: TimeInterval

    /// Creates a request.
    public init(
        authorizeURL: URL, clientID: String, redirect: AuthorizationRedirect, scopes: [String] = [],
        prompt: String? = nil,
        extraParameters: [(String, String)] = [], timeout: TimeInterval = 300
    ) {
        self.authorizeURL = authorizeURL
        self.clientID = clientID
        self.redirect = redirect
        self.scopes = scopes
        self.prompt = prompt
        self.extraParameters = extraParameters
        self.timeout = timeout
    }
}
