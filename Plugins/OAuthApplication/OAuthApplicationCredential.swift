import Logging
public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An app signed in to a portal with its own credentials (OAuth 2.0 `client_credentials`): the
/// client ID and secret and the app token they obtain. The token is requested again
/// automatically when it is about to expire or is refused.
///
/// The client secret is part of the stored credential, so it lives in the keyring with it
/// (never in an attribute or label); it never comes from the command line.
public struct OAuthApplicationCredential: ArcGISCredential, Equatable {
    /// `oauth-application`.
    public static let kind = "oauth-application"
    /// The portal.
    public let serverContext: ServerContext
    /// The app's client ID.
    public let clientID: String
    /// The app's client secret.
    public let clientSecret: String
    /// The token lifetime asked for, in minutes.
    public let tokenExpirationMinutes: Int
    /// The app token.
    public let tokenInfo: TokenInfo

    /// App credentials have no user.
    public var username: String? { nil }
    /// `true`: the portal's OAuth token endpoint issued it.
    public var isIssuedByPortal: Bool { true }

    /// A new app credential for the same portal and app (the secret must be given again).
    public var howToSignIn: PortalAuthError.SignIn {
        PortalAuthError.SignIn(kind: Self.kind, serverContext: serverContext, clientID: clientID)
    }

    /// Creates a credential from its parts.
    public init(
        serverContext: ServerContext, clientID: String, clientSecret: String, tokenExpirationMinutes: Int,
        tokenInfo: TokenInfo
    ) {
        self.serverContext = serverContext
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.tokenExpirationMinutes = tokenExpirationMinutes
        self.tokenInfo = tokenInfo
    }

    /// Requests an app token from `{portal}/sharing/rest/oauth2/token` with
    /// `grant_type=client_credentials`. Throws for an empty or wrong client ID or secret.
    public static func credential(
        for portal: ServerContext, clientID: String, clientSecret: String, tokenExpirationMinutes: Int = 120,
        services: AuthenticationServices
    ) async throws -> OAuthApplicationCredential {
        guard !clientID.isEmpty else {
            throw PortalAuthError(.invalidArgument, "the client ID is empty", remedy: .provide(.clientID))
        }
        guard !clientSecret.isEmpty else {
            throw PortalAuthError(.secretMissing, "the client secret is empty", remedy: .provide(.clientSecret))
        }
        guard (1...20160).contains(tokenExpirationMinutes) else {
            throw PortalAuthError(.invalidArgument, "the app token expiration must be between 1 and 20160 minutes")
        }
        let endpoint = ArcGISOAuthTokenEndpoint(portal: portal)
        let response: ArcGISOAuthTokenResponse
        do {
            response = try await endpoint.requestToken(
                [
                    ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret),
                    ("expiration", String(tokenExpirationMinutes)),
                ], services: services)
        } catch let error as PortalAuthError where error.code == .arcGISError {
            throw PortalAuthError(
                .authenticationFailed,
                "\(portal) refused the app credentials for client ID \(clientID) (\(error.message))",
                remedy: .signIn(
                    .init(kind: OAuthApplicationCredential.kind, serverContext: portal, clientID: clientID)),
                cause: error.cause)
        }
        return OAuthApplicationCredential(
            serverContext: portal, clientID: clientID, clientSecret: clientSecret,
            tokenExpirationMinutes: tokenExpirationMinutes, tokenInfo: response.tokenInfo)
    }

    /// It renews itself with its client secret, without end.
    public var renewal: CredentialRenewal { .renewsItself }

    /// Requests a new app token; nil when the portal no longer accepts the app credentials.
    public func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? {
        do {
            return try await Self.credential(
                for: serverContext, clientID: clientID, clientSecret: clientSecret,
                tokenExpirationMinutes: tokenExpirationMinutes, services: services)
        } catch let error as PortalAuthError where error.code == .authenticationFailed {
            services.logger.info(
                "app credentials refused", metadata: ["server": "\(serverContext)", "client": "\(clientID)"])
            return nil
        }
    }
}

/// Reads app credentials back from the stores and lets them renew themselves; it answers no
/// challenge itself (an app credential is created with
/// ``OAuthApplicationCredential/credential(for:clientID:clientSecret:tokenExpirationMinutes:services:)``).
public struct OAuthApplicationHandler: AuthenticationChallengeHandler {
    /// Creates the handler.
    public init() {}
    /// ``OAuthApplicationCredential``.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] { [OAuthApplicationCredential.self] }
    /// None.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool { false }
    /// Never called.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition { .continueWithoutCredential }
}
