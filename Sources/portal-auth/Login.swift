import ArgumentParser
import PortalAuth
import PortalAuthCertificate
import PortalAuthIAP
import PortalAuthOAuthApplication
import PortalAuthOAuthUser
import PortalAuthPassword
import PortalAuthPregeneratedToken
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth login`: sign in and store the credential.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in and store the credential in the credential store.",
        discussion: """
            A credential already stored stays in place if the new sign-in fails. A portal URL copied \
            from the browser (.../portal/home/..., .../portal/sharing/rest) is reduced to the portal.

            Examples:
              ArcGIS token (username and password; asked for on the terminal):
                portal-auth login --portal https://host/portal --username alice
                printf '%s' "$PASS" | portal-auth login --portal https://host/portal \\
                  --username alice --password-stdin
              ArcGIS API key (the portal and its location services; docs/api-keys.md):
                printf '%s' "$KEY" | portal-auth login --portal https://host/portal \\
                  --api-key-stdin --expires 2027-01-31
              Pregenerated token (made elsewhere):
                printf '%s' "$TOKEN" | portal-auth login --url https://host/server \\
                  --token-stdin --expires-in 3600
              OAuth user (browser sign-in with PKCE; loopback redirect by default;
              or --redirect-url URL, --oob, --no-browser):
                portal-auth login --portal https://host/portal --client-id APPID
              OAuth application (client credentials):
                printf '%s' "$SECRET" | portal-auth login --portal https://host/portal \\
                  --client-id APPID --client-secret-stdin
              A server secured at the web tier (HTTP Basic, Digest, NTLM or
              Negotiate: it answers 401; --kerberos uses your ticket from kinit):
                printf '%s' "$PASS" | portal-auth login --url https://host/arcgis \\
                  --username alice --password-stdin
                portal-auth login --url https://host/arcgis --kerberos
              A client certificate (PKI; the PKCS#12 file and its password are kept):
                printf '%s' "$P12PASS" | portal-auth login --url https://host/arcgis \\
                  --p12 me.p12 --password-stdin
              A server with a self-signed certificate:
                portal-auth trust host:443
              From a JSON file (see config/), including a portal behind Microsoft
              Entra Application Proxy:
                portal-auth login --config oauth.json
                portal-auth login --config iap.json --no-browser
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup(title: "API key") var apiKeyOptions: LoginAPIKeyOptions

    @Option(help: ArgumentHelp("The portal (or ArcGIS Server) URL to sign in to.", valueName: "url"))
    var portal: String?

    @Option(help: "The user name (token sign-in).")
    var username: String?

    @Flag(help: "Read the password from standard input (otherwise it is asked for on the terminal).")
    var passwordStdin = false

    @Option(
        help: ArgumentHelp(
            "Token sign-in: the token lifetime in minutes (default 60). OAuth user: the refresh token lifetime (default 20160). OAuth app: the app token lifetime (default 120).",
            valueName: "minutes"))
    var expiration: Int?

    @Option(help: ArgumentHelp("The server URL a pregenerated token is for.", valueName: "url"))
    var url: String?

    @Flag(help: "Read a pregenerated token from standard input.")
    var tokenStdin = false

    @Option(help: ArgumentHelp("When the pregenerated token expires, in seconds from now.", valueName: "seconds"))
    var expiresIn: Int?

    @Option(
        help:
            "Bind the token to this referer (client=referer): it then works only with a Referer header of this value. Without it, the token is bound to this machine's IP address (client=requestip) and works as it is."
    )
    var referer: String?

    @Option(help: ArgumentHelp("The client ID of the app registered in the portal (OAuth sign-in).", valueName: "id"))
    var clientID: String?

    @Option(
        help: ArgumentHelp(
            "The redirect URL registered for the app (default http://127.0.0.1/oauth/callback on a free port).",
            valueName: "url"))
    var redirectURL: String?

    @Flag(help: "Out-of-band OAuth sign-in: the portal shows a code to paste (urn:ietf:wg:oauth:2.0:oob).")
    var oob = false

    @Flag(help: "Print the sign-in URL instead of opening a browser (for SSH sessions).")
    var noBrowser = false

    @Flag(
        help:
            "Read the app's client secret from standard input (OAuth application sign-in; or set PORTAL_AUTH_CLIENT_SECRET)."
    )
    var clientSecretStdin = false

    @Option(
        help: ArgumentHelp("How long to wait for the browser sign-in, in seconds (default 300).", valueName: "seconds"))
    var timeout: Int?

    @Option(help: ArgumentHelp("A JSON file describing the sign-in (see config/).", valueName: "file"))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "A PKCS#12 (.p12/.pfx) client certificate to present to --url's host; its password comes from --password-stdin or the prompt.",
            valueName: "file"))
    var p12: String?

    @Flag(help: "Let HTTP Basic send the password over plain http (it travels in clear; off by default).")
    var allowBasicOverHttp = false

    @Flag(help: "Sign in to a Negotiate (Kerberos) server with your current ticket (from kinit), without a password.")
    var kerberos = false

    /// The kind of sign-in the options ask for.
    enum Mode {
        case apiKey, password, pregenerated, oauthUser, oauthApplication, configFile, clientCertificate, kerberosTicket
    }

    var mode: Mode {
        if apiKeyOptions.apiKeyStdin { return .apiKey }
        if config != nil { return .configFile }
        if p12 != nil { return .clientCertificate }
        if kerberos { return .kerberosTicket }
        if tokenStdin { return .pregenerated }
        if clientID != nil {
            return clientSecretStdin
                || ProcessInfo.processInfo.environment["PORTAL_AUTH_CLIENT_SECRET"].map { !$0.isEmpty } == true
                ? .oauthApplication : .oauthUser
        }
        return .password
    }

    func validate() throws {
        try validateAPIKeyOptions()
        if let expiration, expiration <= 0 {
            throw ValidationError("--expiration must be a positive number of minutes")
        }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be a positive number of seconds") }
        if let referer {
            guard !referer.isEmpty else {
                throw ValidationError(
                    "--referer \"\" would bind the token to no referer, which the server refuses: give a referer (then send it as the Referer header with the token), or drop --referer to bind the token to this machine's IP address"
                )
            }
            do { try TokenCredential.checkReferer(referer) } catch let error as PortalAuthError {
                throw ValidationError("--referer: \(error.message)")
            }
        }
        let browserOptions = redirectURL != nil || oob || noBrowser
        switch mode {
        case .apiKey: return  // (validateAPIKeyOptions)
        case .configFile:
            guard portal == nil, url == nil, clientID == nil, username == nil, !tokenStdin else {
                throw ValidationError(
                    "--config describes the whole sign-in: do not combine it with --portal, --url, --client-id, --username or --token-stdin"
                )
            }
            // Options the file has its own keys for would be ambiguous: refuse them rather than pick one.
            let conflicting = [
                ("--expiration", expiration != nil), ("--timeout", timeout != nil),
                ("--redirect-url", redirectURL != nil),
                ("--oob", oob), ("--password-stdin", passwordStdin), ("--referer", referer != nil),
                ("--expires-in", expiresIn != nil),
                ("--p12", p12 != nil), ("--kerberos", kerberos), ("--allow-basic-over-http", allowBasicOverHttp),
            ]
            .filter(\.1).map(\.0)
            if !conflicting.isEmpty {
                throw ValidationError(
                    "\(conflicting.joined(separator: ", ")) cannot be combined with --config: set the matching key in the file instead (see config/README.md)"
                )
            }
        case .pregenerated:
            guard url != nil || portal != nil else {
                throw ValidationError("--token-stdin needs --url URL (the server the token is for)")
            }
            guard !passwordStdin, !clientSecretStdin else {
                throw ValidationError(
                    "--token-stdin reads the token from stdin; it cannot be combined with --password-stdin or --client-secret-stdin"
                )
            }
        case .oauthUser, .oauthApplication:
            guard portal != nil else {
                throw ValidationError("--client-id needs --portal URL (the portal the app is registered in)")
            }
            guard username == nil, !passwordStdin else {
                throw ValidationError(
                    "an OAuth sign-in never takes a username or password: drop --username/--password-stdin (the password is typed in the portal's page)"
                )
            }
            if redirectURL != nil && oob { throw ValidationError("--redirect-url and --oob cannot be used together") }
            if mode == .oauthApplication, browserOptions {
                throw ValidationError(
                    "an app sign-in (--client-secret-stdin) uses no browser: drop --redirect-url, --oob and --no-browser"
                )
            }
        case .clientCertificate, .kerberosTicket:
            let what = mode == .clientCertificate ? "--p12" : "--kerberos"
            guard url != nil, portal == nil else {
                throw ValidationError("\(what) needs --url URL (the https server to present it to)")
            }
            guard clientID == nil, !tokenStdin else {
                throw ValidationError("\(what) cannot be combined with --client-id or --token-stdin")
            }
            if mode == .clientCertificate, username != nil {
                throw ValidationError("--p12 signs in with the certificate: drop --username")
            }
            if mode == .kerberosTicket, passwordStdin {
                throw ValidationError(
                    "--kerberos uses your ticket and no password: drop --password-stdin (or drop --kerberos and give --username)"
                )
            }
            if mode == .clientCertificate, kerberos {
                throw ValidationError("--p12 and --kerberos cannot be used together")
            }
        case .password:
            guard portal != nil || url != nil else {
                throw ValidationError(
                    "say where to sign in: --portal URL --username USER [--password-stdin], --portal URL --client-id ID, --url URL --token-stdin, or --config FILE"
                )
            }
            guard username != nil else {
                throw ValidationError(
                    "--username is required for a password sign-in (or use --client-id for OAuth, --token-stdin for a pregenerated token)"
                )
            }
            guard !browserOptions else {
                throw ValidationError("--redirect-url, --oob and --no-browser go with --client-id (OAuth sign-in)")
            }
        }
        if mode != .pregenerated, expiresIn != nil {
            throw ValidationError("--expires-in goes with --token-stdin; use --expiration MINUTES otherwise")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            switch mode {
            case .apiKey: try await loginWithAPIKey()
            case .pregenerated: try await loginWithPregeneratedToken()
            case .password: try await loginWithPassword()
            case .oauthUser:
                let configuration = try OAuthUserConfiguration(
                    portalURL: try Self.portalRoot(portal!), clientID: clientID!,
                    redirectURL: try Self.redirect(oob ? AuthorizationRedirect.outOfBandURI : redirectURL),
                    refreshTokenExpirationMinutes: expiration ?? 20160, timeout: TimeInterval(timeout ?? 300))
                try await loginWithOAuthUser(configuration)
            case .oauthApplication:
                try await loginWithOAuthApplication(
                    portal: try ServerContext(url: try Self.portalRoot(portal!)), clientID: clientID!,
                    expirationMinutes: expiration ?? 120)
            case .configFile:
                try await loginWithConfigFile(config!)
            case .clientCertificate:
                try await loginWithClientCertificate(path: p12!)
            case .kerberosTicket:
                try await loginWithKerberosTicket()
            }
        }
    }

    private func loginWithConfigFile(_ path: String) async throws {
        var file = try ConfigurationFile(contentsOf: path)
        // ArcGIS's IAP configuration JSON has no "type": its keys say what it is.
        switch try file.readingKind(among: Self.configurationKinds).type {
        case "iap":
            if clientSecretStdin {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "\(path) describes an identity-aware proxy sign-in (in the browser), which takes no client secret: drop --client-secret-stdin"
                )
            }
            try await loginWithIAP(try IAPConfiguration(file: file))
        case "oauth-user":
            if clientSecretStdin {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "\(path) describes a user sign-in (in the browser), which takes no client secret: drop --client-secret-stdin"
                )
            }
            try await loginWithOAuthUser(try OAuthUserConfiguration(file: file))
        case "oauth-application":
            if noBrowser {
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

    private func loginWithOAuthUser(_ configuration: OAuthUserConfiguration) async throws {
        let manager = try global.makeManager()
        // Fail on an unusable store before anyone signs in.
        try manager.arcGISCredentialStore.backend.checkAvailable()
        var agent = TerminalAuthorizationUserAgent(noBrowser: noBrowser, allowed: true)
        // Without a display, the out-of-band flow is the way out (--config files set their redirect).
        agent.outOfBandHint = config == nil ? "press Ctrl-C and run the same login with --oob" : nil
        let credential = try await OAuthUserCredential.credential(
            for: configuration, userAgent: agent, services: manager.services)
        try await manager.arcGISCredentialStore.add(credential)
        output(
            "Signed in to \(credential.serverContext) as \(credential.username ?? "?") with OAuth (app \(credential.clientID))\(credential.refreshTokenExpirationDate.map { "; the refresh token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name))."
        )
    }

    private func loginWithIAP(_ configuration: IAPConfiguration) async throws {
        let manager = try global.makeManager()
        try manager.iapCredentialStore.backend.checkAvailable()
        let agent = TerminalAuthorizationUserAgent(noBrowser: noBrowser, allowed: true)
        // The identity provider is not behind the proxy: sign in with the manager's services,
        // which add no proxy token to it.
        let credential = try await IAPCredential.credential(
            for: configuration, userAgent: agent, services: manager.services)
        try await manager.iapCredentialStore.add(credential)
        let hosts = configuration.hostsBehindProxy.joined(separator: ", ")
        output(
            "Signed in to the identity-aware proxy for \(hosts)\(credential.username.map { " as \($0)" } ?? "")\(credential.tokenInfo.expirationDate.map { "; the token expires \($0.iso8601)\(credential.refreshToken == nil ? "" : " and is refreshed automatically")" } ?? "") (stored in \(manager.iapCredentialStore.backend.name))."
        )
    }

    private func loginWithOAuthApplication(portal: ServerContext, clientID: String, expirationMinutes: Int) async throws
    {
        let manager = try global.makeManager()
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let secret: String
        if clientSecretStdin {
            secret = try readSecretFromStdin(what: "client secret", flag: "--client-secret-stdin")
        } else if let fromEnvironment = ProcessInfo.processInfo.environment["PORTAL_AUTH_CLIENT_SECRET"],
            !fromEnvironment.isEmpty
        {
            secret = fromEnvironment
        } else {
            throw PortalAuthError(
                .secretMissing, "no client secret was given", remedy: .provide(.clientSecret))
        }
        let credential = try await OAuthApplicationCredential.credential(
            for: portal, clientID: clientID, clientSecret: secret,
            tokenExpirationMinutes: expirationMinutes, services: manager.services)
        try await manager.arcGISCredentialStore.add(credential)
        output(
            "Signed in to \(portal) as app \(clientID)\(credential.tokenInfo.expirationDate.map { "; the app token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name))."
        )
    }

    /// The password from --password-stdin or the terminal.
    private func readPassword(for place: String, who: String) throws -> String {
        if passwordStdin {
            return try readSecretFromStdin(what: "password", flag: "--password-stdin")
        } else if stdinIsTerminal {
            let password = try promptHidden("Password for \(who) @ \(place): ")
            guard !password.isEmpty else { throw PortalAuthError(.secretMissing, "no password was typed") }
            return password
        }
        throw PortalAuthError(
            .secretMissing, "no password: stdin is not a terminal, so pipe the password and add --password-stdin")
    }

    private func loginWithPassword() async throws {
        let target = try portal.map(Self.portalRoot) ?? parseURL(url!)
        let context = try ServerContext(url: target)
        let transport = global.makeTransport()
        let manager = try global.makeManager(transport: transport)
        // Fail on an unusable store before the password goes anywhere.
        try manager.arcGISCredentialStore.backend.checkAvailable()
        // --url: a server secured at the web tier answers 401; anything else signs in with a token.
        if portal == nil, let offer = try await manager.httpAuthenticationOffer(for: target) {
            try await loginWithNetworkPassword(target, offer: offer, manager: manager)
            return
        }
        let password = try readPassword(for: context.description, who: username!)
        let isPortal = ServerContext.arcGISServerRoot(of: target) == nil
        let tokenServiceURL = await manager.services.tokenServiceURL(for: context, isPortal: isPortal)
        let credential = try await TokenCredential.credential(
            for: context, tokenServiceURL: tokenServiceURL, username: username!, password: password,
            referer: referer, expirationMinutes: expiration ?? 60,
            keepPassword: false, services: manager.services)
        try await manager.arcGISCredentialStore.add(credential)
        output(
            "Signed in to \(context) as \(username!)\(credential.tokenInfo.expirationDate.map { "; the token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name))."
        )
    }

    private func loginWithNetworkPassword(
        _ target: URL, offer: (schemes: TransportOptions.HTTPAuthSchemes, realm: String?),
        manager: AuthenticationManager
    ) async throws {
        let host = try ServerContext.host(of: target)
        let place = "\(host.host):\(host.port)"
        // Refused before the password is even read: Basic over plain http.
        _ = try PasswordCredential.usableSchemes(offer.schemes, on: host, allowsBasicOverHTTP: allowBasicOverHttp)
        let password = try readPassword(for: place, who: username!)
        let credential = try PasswordCredential(
            host: host, realm: offer.realm, username: username!, password: password,
            schemes: offer.schemes, allowsBasicOverHTTP: allowBasicOverHttp)
        try await manager.signIn(with: credential, verifying: target)
        let schemes = schemeNames(offer.schemes)
        output(
            "Signed in to \(host) as \(username!) with HTTP \(schemes)\(offer.realm.map { " (realm \"\($0)\")" } ?? "") (stored in \(manager.networkCredentialStore.backend.name))."
        )
    }

    private func loginWithKerberosTicket() async throws {
        let target = try parseURL(url!)
        let host = try ServerContext.host(of: target)
        let manager = try global.makeManager()
        try manager.networkCredentialStore.backend.checkAvailable()
        guard let principal = KerberosTicket.current() else {
            throw PortalAuthError(
                .secretMissing,
                "you have no Kerberos ticket (klist shows none, or it expired): run kinit, or sign in with --username USER --password-stdin"
            )
        }
        let credential = PasswordCredential.kerberosTicket(host: host, realm: nil, principal: principal)
        try await manager.signIn(with: credential, verifying: target)
        output(
            "Signed in to \(host) as \(principal) with your Kerberos ticket (Negotiate); renew it with kinit (stored in \(manager.networkCredentialStore.backend.name))."
        )
    }

    private func loginWithClientCertificate(path: String) async throws {
        let target = try parseURL(url!)
        let host = try ServerContext.host(of: target)
        let manager = try global.makeManager()
        try manager.networkCredentialStore.backend.checkAvailable()
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PortalAuthError(
                .invalidArgument,
                "cannot read the PKCS#12 file \(path) (it does not exist, or it is not readable); nothing was stored",
                remedy: .provideClientCertificate(host: host.host, port: host.port))
        }
        let password = try readPassword(for: path, who: "the PKCS#12 file")
        let credential = try CertificateCredential(host: host, pkcs12: Array(data), password: password, name: path)
        if credential.isExpired {
            printWarning(
                "the certificate \(credential.certificate.subject) is not valid now (valid \(credential.certificate.notBefore.iso8601) to \(credential.certificate.notAfter.iso8601)): the server will likely refuse it"
            )
        }
        try await manager.signIn(with: credential, verifying: target)
        output(
            "Stored the client certificate \(credential.certificate.subject) (issued by \(credential.certificate.issuer), valid until \(credential.certificate.notAfter.iso8601)) for \(host) (in \(manager.networkCredentialStore.backend.name))."
        )
    }

    private func loginWithPregeneratedToken() async throws {
        let target = try parseURL(url ?? portal!)
        let manager = try global.makeManager()
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let token = try readSecretFromStdin(what: "token", flag: "--token-stdin")
        let credential = try PregeneratedTokenCredential(
            url: target, token: token, expiresIn: expiresIn.map(Double.init), referer: referer, username: username)
        try await manager.arcGISCredentialStore.add(credential)
        output(
            "Stored a pregenerated token for \(credential.serverContext)\(credential.tokenInfo.expirationDate.map { "; it expires \($0.iso8601)" } ?? " with no expiry") (in \(manager.arcGISCredentialStore.backend.name))."
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

extension Login {
    /// The path segments after which a portal URL copied from the browser is a page or an API
    /// of the portal, not the portal: `.../portal/home/item.html?id=...`, `.../portal/apps/...`,
    /// `.../portal/sharing/rest`, `.../portal/portaladmin`.
    static let portalPageSegments: Set<String> = ["home", "apps", "sharing", "portaladmin"]

    /// `--portal` as the portal's root URL: a URL copied from the browser is reduced to the
    /// portal, with a note on stderr.
    static func portalRoot(_ text: String) throws -> URL {
        let url = try parseURL(text)
        guard let root = portalRoot(of: url) else { return url }
        printInfo(
            "portal-auth: note: \(ServerContext.describeWithScheme(url)) is a page of the portal; signing in to the portal \(root.absoluteString)"
        )
        return root
    }

    /// The portal root of a URL that goes on into one of its pages or APIs, or nil when it does not.
    static func portalRoot(of url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard let page = segments.firstIndex(where: { portalPageSegments.contains($0.lowercased()) }) else {
            return nil
        }
        components.percentEncodedPath = segments[..<page].joined(separator: "/")
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.url
    }

    /// The `--redirect-url` (or the out-of-band URI) as a URL; the default loopback when none is given.
    static func redirect(_ text: String?) throws -> URL {
        guard let text else { return OAuthUserConfiguration.defaultRedirectURL }
        _ = try AuthorizationRedirect(text)  // its error says what a redirect URL may be
        guard let url = URL(string: text) else { throw ValidationError("--redirect-url \(text) is not a URL") }
        return url
    }
}
