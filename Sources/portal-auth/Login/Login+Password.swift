import PortalAuth
import PortalAuthPassword
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --username`: a password, for an ArcGIS token or for HTTP authentication at the web tier.
extension Login {
    /// The password from --password-stdin or the terminal.
    func readPassword(for place: String, who: String) throws -> String {
        if credentials.passwordStdin {
            return try readSecretFromStdin(what: "password", flag: "--password-stdin")
        } else if stdinIsTerminal {
            let password = try promptHidden("Password for \(who) @ \(place): ")
            guard !password.isEmpty else { throw PortalAuthError(.secretMissing, "no password was typed") }
            return password
        }
        throw PortalAuthError(
            .secretMissing, "no password: stdin is not a terminal to type it at", remedy: .provide(.password))
    }

    func loginWithPassword() async throws {
        // A portal's URL is read as every typed portal URL is; `--url` names the page whose server answers
        // (a web tier's 401 is asked of that very URL), read strictly but not reduced.
        let target =
            try place.portal.map { try PortalURLInput.read($0, doing: "signing in to") } ?? parseURL(place.url!)
        let context = try ServerContext(url: target)
        let transport = global.makeTransport()
        let manager = try global.makeManager(transport: transport)
        // Fail on an unusable store before the password goes anywhere.
        try manager.arcGISCredentialStore.backend.checkAvailable()
        if credentials.rememberPassword { try RememberedPassword.checkStore(manager.arcGISCredentialStore.backend) }
        // --url: a server secured at the web tier answers 401; anything else signs in with a token.
        if place.portal == nil, let offer = try await manager.httpAuthenticationOffer(for: target) {
            if credentials.rememberPassword { throw RememberedPassword.webTierError }
            try await loginWithNetworkPassword(target, offer: offer, manager: manager)
            return
        }
        let password = try readPassword(for: context.description, who: credentials.username!)
        let credential: TokenCredential
        do {
            credential = try await token(at: target, password: password, services: manager.services)
        } catch let error as PortalAuthError {
            // A server's URL where a portal's was expected: signed in to as a server, or named its portal.
            guard
                let server = try await Self.serverSignInURL(
                    after: error, at: target, username: credentials.username!, services: manager.services)
            else { throw error }
            credential = try await token(at: server, password: password, services: manager.services)
        }
        let addition = try await manager.arcGISCredentialStore.addAccount(credential)
        // (A second account leaves the password kept for the active one alone unless told to keep its own.)
        let remembers = addition == .active || credentials.rememberPassword
        let kept =
            try await !remembers
            ? nil
            : RememberedPassword.update(
                remember: credentials.rememberPassword, password: password, for: context,
                username: credentials.username!,
                in: manager.arcGISCredentialStore.backend)
        output(
            "Signed in to \(context) as "
                + "\(credentials.username!)\(credential.tokenInfo.expirationDate.map { "; the token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name))."
        )
        if let kept { output(kept) }
        if let note = accountNote(addition, user: credentials.username!, context: context) { output(note) }
    }

    /// A token from the token service of the portal or server `url` names.
    func token(at url: URL, password: String, services: AuthenticationServices) async throws -> TokenCredential {
        try await TokenCredential.credential(
            for: url, username: credentials.username!, password: password, referer: credentials.referer,
            tokenExpirationMinutes: credentials.expiration ?? 60, keepPassword: false, services: services)
    }

    func loginWithNetworkPassword(
        _ target: URL, offer: (schemes: TransportOptions.HTTPAuthSchemes, realm: String?),
        manager: AuthenticationManager
    ) async throws {
        let host = try ServerContext.host(of: target)
        let place = "\(host.host):\(host.port)"
        // Refused before the password is even read: Basic over plain http.
        _ = try PasswordCredential.usableSchemes(
            offer.schemes, on: host, allowsBasicOverHTTP: webTier.allowBasicOverHttp)
        let password = try readPassword(for: place, who: credentials.username!)
        let credential = try PasswordCredential(
            host: host, realm: offer.realm, username: credentials.username!, password: password,
            schemes: offer.schemes, allowsBasicOverHTTP: webTier.allowBasicOverHttp)
        try await manager.signIn(with: credential, verifying: target)
        let schemes = schemeNames(offer.schemes)
        output(
            "Signed in to \(host) as \(credentials.username!) with HTTP "
                + "\(schemes)\(offer.realm.map { " (realm \"\($0)\")" } ?? "") (stored in "
                + "\(manager.networkCredentialStore.backend.name))."
        )
    }

}

/// "Basic/Digest" for an offer.
func schemeNames(_ schemes: TransportOptions.HTTPAuthSchemes) -> String {
    [
        (TransportOptions.HTTPAuthSchemes.basic, "Basic"), (.digest, "Digest"), (.ntlm, "NTLM"),
        (.negotiate, "Negotiate"),
    ]
    .filter { schemes.contains($0.0) }.map(\.1).joined(separator: "/")
}
