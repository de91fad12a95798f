import PortalAuth
import PortalAuthIAP
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --config FILE`: the sign-in a JSON file describes (an OAuth user or app, an identity-aware proxy).
extension Login {
    func loginWithConfigFile(_ path: String) async throws {
        var file = try ConfigurationFile(contentsOf: path)
        // ArcGIS's IAP configuration JSON has no "type": its keys say what it is.
        switch try file.readingKind(among: Self.configurationKinds).type {
        case "iap":
            if oauth.clientSecretStdin {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "\(path) describes an identity-aware proxy sign-in (in the browser), which takes no client secret: drop --client-secret-stdin"
                )
            }
            try await loginWithIAP(try IAPConfiguration(file: file))
        case "oauth-user":
            if oauth.clientSecretStdin {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "\(path) describes a user sign-in (in the browser), which takes no client secret: drop --client-secret-stdin"
                )
            }
            try await loginWithOAuthUser(try OAuthUserConfiguration(file: file))
        case "oauth-application":
            if oauth.noBrowser {
                throw PortalAuthError(
                    .invalidConfiguration, "\(path) describes an app sign-in, which uses no browser: drop --no-browser")
            }
            try file.requireOnlyKeys(Self.oauthApplicationKind.keys)
            try await loginWithOAuthApplication(
                portal: try ServerContext(url: try file.httpsURL("portal_url")), clientID: try file.string("client_id"),
                expirationMinutes: try file.optionalPositiveInteger("token_expiration_minutes") ?? 120)
        case let other:
            throw PortalAuthError(
                .invalidConfiguration,
                "\(path): \"type\" must be \"oauth-user\", \"oauth-application\" or \"iap\", not \"\(other)\"")
        }
    }

    /// The kinds of `--config` file, the preferred first when a file's keys fit several.
    static let configurationKinds = [OAuthUserConfiguration.fileKind, IAPConfiguration.fileKind, oauthApplicationKind]
    static let oauthApplicationKind = ConfigurationKind(
        type: "oauth-application", name: "an OAuth application sign-in",
        keys: ["type", "portal_url", "client_id", "token_expiration_minutes"])

}
