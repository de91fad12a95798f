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
        var file = try Self.withPortalURLRead(try ConfigurationFile(contentsOf: path))
        // ArcGIS's IAP configuration JSON has no "type": its keys say what it is.
        let kind = try file.readingKind(among: Self.configurationKinds)
        if let refused = Self.refusedWithFile[kind.type], given.contains(refused.option) {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(path) describes \(kind.name), which \(refused.because): drop \(refused.option.rawValue)")
        }
        switch kind.type {
        case "iap":
            try await loginWithIAP(try IAPConfiguration(file: file))
        case "oauth-user":
            try await loginWithOAuthUser(try OAuthUserConfiguration(file: file))
        case "oauth-application":
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

    /// `file` with its `portal_url` read as every typed portal URL is (``PortalURLInput``): a page
    /// of the portal copied from the browser becomes the portal, with the note.
    static func withPortalURLRead(_ file: ConfigurationFile) throws -> ConfigurationFile {
        guard case .string(let text)? = file.members["portal_url"], text.contains("://"),
            let url = try? PortalURLInput.read(text, source: "\(file.source): portal_url", doing: "signing in to"),
            url.absoluteString != text
        else { return file }
        var members = file.members
        members["portal_url"] = .string(url.absoluteString)
        let json = try JSONValue.object(members).jsonText(pretty: false)
        return try ConfigurationFile(data: Array(json.utf8), source: file.source)
    }

    /// The option (of those LoginRule.configFile takes) that each kind of file has no use for, and why.
    static let refusedWithFile: [String: (option: LoginOption, because: String)] = [
        "iap": (.clientSecretStdin, "signs in in the browser and takes no client secret"),
        "oauth-user": (.clientSecretStdin, "signs in in the browser and takes no client secret"),
        "oauth-application": (.noBrowser, "uses no browser"),
    ]

    /// The kinds of `--config` file, the preferred first when a file's keys fit several.
    static let configurationKinds = [OAuthUserConfiguration.fileKind, IAPConfiguration.fileKind, oauthApplicationKind]
    static let oauthApplicationKind = ConfigurationKind(
        type: "oauth-application", name: "an OAuth application sign-in",
        keys: ["type", "portal_url", "client_id", "token_expiration_minutes"])

}
