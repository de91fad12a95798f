import PortalAuth
import PortalAuthIAP
import PortalAuthOAuthApplication
import PortalAuthOAuthUser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --client-id`: OAuth sign-ins, a user's in the browser or an app's own; and the proxy's (from --config).
extension Login {
    /// The browser sign-in the options describe.
    func oauthUserConfiguration() throws -> OAuthUserConfiguration {
        try OAuthUserConfiguration(
            portalURL: try Self.portalRoot(place.portal!), clientID: oauth.clientID!,
            redirectURL: try Self.redirect(oauth.oob ? AuthorizationRedirect.outOfBandURI : oauth.redirectURL),
            refreshTokenExpirationMinutes: credentials.expiration ?? 20160,
            timeout: TimeInterval(oauth.timeout ?? 300))
    }

    func loginWithOAuthUser(_ configuration: OAuthUserConfiguration) async throws {
        let manager = try global.makeManager()
        // Fail on an unusable store before anyone signs in.
        try manager.arcGISCredentialStore.backend.checkAvailable()
        // A client ID the portal does not know is said now, not after the browser's timeout.
        try await AppRegistrationCheck.requireKnownApp(configuration, transport: manager.services.transport)
        var agent = TerminalAuthorizationUserAgent(noBrowser: oauth.noBrowser, allowed: true)
        // Without a display, the out-of-band flow is the way out (--config files set their redirect).
        agent.outOfBandHint = place.config == nil ? "press Ctrl-C and run the same login with --oob" : nil
        let credential = try await OAuthUserCredential.credential(
            for: configuration, userAgent: agent, services: manager.services)
        let addition = try await manager.arcGISCredentialStore.addAccount(credential)
        output(
            "Signed in to \(credential.serverContext) as \(credential.username ?? "?") with OAuth (app "
                + "\(credential.clientID))\(credential.refreshTokenExpirationDate.map { "; the refresh token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name))."
        )
        if let note = accountNote(addition, user: credential.username ?? "?", context: credential.serverContext) {
            output(note)
        }
    }

    func loginWithIAP(_ configuration: IAPConfiguration) async throws {
        let manager = try global.makeManager()
        try manager.iapCredentialStore.backend.checkAvailable()
        let agent = TerminalAuthorizationUserAgent(noBrowser: oauth.noBrowser, allowed: true)
        // The identity provider is not behind the proxy: sign in with the manager's services,
        // which add no proxy token to it.
        let credential = try await IAPCredential.credential(
            for: configuration, userAgent: agent, services: manager.services)
        try await manager.iapCredentialStore.commit(credential, origin: .signIn)
        let hosts = configuration.hostsBehindProxy.joined(separator: ", ")
        output(
            "Signed in to the identity-aware proxy for "
                + "\(hosts)\(credential.username.map { " as \($0)" } ?? "")\(credential.tokenInfo.expirationDate.map { "; the token expires \($0.iso8601)\(credential.refreshToken == nil ? "" : " and is refreshed automatically")" } ?? "") (stored in \(manager.iapCredentialStore.backend.name))."
        )
    }

    func loginWithOAuthApplication(portal: ServerContext, clientID: String, expirationMinutes: Int) async throws {
        let manager = try global.makeManager()
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let secret: String
        if oauth.clientSecretStdin {
            secret = try readSecretFromStdin(what: "client secret", flag: "--client-secret-stdin")
        } else if let fromEnvironment = clientSecretInEnvironment {
            secret = fromEnvironment
        } else {
            throw PortalAuthError(
                .secretMissing, "no client secret was given", remedy: .provide(.clientSecret))
        }
        let credential: OAuthApplicationCredential
        do {
            credential = try await OAuthApplicationCredential.credential(
                for: portal, clientID: clientID, clientSecret: secret,
                tokenExpirationMinutes: expirationMinutes, services: manager.services)
        } catch let error as PortalAuthError
            where AppRegistrationCheck.refusesClientID(
                status: 400, body: error.message + " " + error.detailedDescription)
        {
            // oauth2/token says so at once too: in one line, the portal knows no such app.
            throw AppRegistrationCheck.unknownApp(clientID, portal: portal)
        }
        try await manager.arcGISCredentialStore.commit(credential, origin: .signIn)
        output(
            "Signed in to \(portal) as app "
                + "\(clientID)\(credential.tokenInfo.expirationDate.map { "; the app token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name))."
        )
    }

    /// The password from --password-stdin or the terminal.
}
