import ArgumentParser
import PortalAuth
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImportArcGISProfile {
    /// An OAuth profile (`client_id`): once `GIS(..., client_id=ID, profile=NAME)` signed in, the
    /// API keeps the refresh token where a profile keeps its password. It is tried once with
    /// `grant_type=refresh_token` (which leaves it working for the API too), and the sign-in is
    /// stored only when the portal answers with an access token; otherwise the line says to sign
    /// in with the app.
    static func importOAuth(
        _ profile: ArcGISProfile, url: String, clientID: String, manager: AuthenticationManager
    ) async throws -> String {
        let portal = try ServerContext(url: try PortalURLInput.read(url, source: "its url", doing: "signing in to"))
        let advice = "run portal-auth login --portal \(portal.url) --client-id \(clientID)"
        guard let refreshToken = try keyringSecret(profile) else {
            throw ValidationError(
                "it signs in with OAuth (client_id \(clientID)) and the keyring holds no refresh token for it: \(advice)"
            )
        }
        let outOfBand = AuthorizationRedirect.outOfBandURI
        let user = profile.options["username"].flatMap { $0.isEmpty || $0 == "None" ? nil : $0 }
        let seed = OAuthUserCredential(
            serverContext: portal, clientID: clientID, redirectURL: URL(string: outOfBand)!, redirectURI: outOfBand,
            username: user, tokenInfo: TokenInfo(accessToken: "-", expirationDate: .distantPast, isSSLRequired: true),
            refreshToken: refreshToken, refreshTokenExpirationDate: nil)
        guard let credential = try await seed.renewed(using: manager.services) as? OAuthUserCredential else {
            throw ValidationError(
                "\(portal) refused the refresh token the API kept for it (OAuth, client_id \(clientID); it may have "
                    + "expired or been revoked, or the keyring holds a password there): \(advice)")
        }
        let addition = try await manager.arcGISCredentialStore.addAccount(credential)
        let name = credential.username ?? "?"
        let note = accountNote(addition, user: name, context: portal).map { " " + $0 } ?? ""
        return "signed in to \(portal) as \(name) with OAuth (app \(clientID)), renewed with the refresh token the "
            + "API kept.\(note)"
    }
}
