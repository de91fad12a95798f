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
    @OptionGroup(title: "Where") var place: LoginPlaceOptions
    @OptionGroup(title: "Username and password") var credentials: LoginPasswordOptions
    @OptionGroup(title: "API key") var apiKeyOptions: LoginAPIKeyOptions
    @OptionGroup(title: "Pregenerated token") var pregenerated: LoginPregeneratedTokenOptions
    @OptionGroup(title: "OAuth") var oauth: LoginOAuthOptions
    @OptionGroup(title: "Web tier (HTTP authentication)") var webTier: LoginWebTierOptions

    /// The options given on the command line, by name.
    var given: Set<LoginOption> {
        let present: [(LoginOption, Bool)] = [
            (.portal, place.portal != nil), (.url, place.url != nil), (.config, place.config != nil),
            (.username, credentials.username != nil), (.passwordStdin, credentials.passwordStdin),
            (.rememberPassword, credentials.rememberPassword),
            (.expiration, credentials.expiration != nil), (.referer, credentials.referer != nil),
            (.apiKeyStdin, apiKeyOptions.apiKeyStdin), (.expires, apiKeyOptions.expires != nil),
            (.host, !apiKeyOptions.hosts.isEmpty), (.tokenStdin, pregenerated.tokenStdin),
            (.unchecked, pregenerated.unchecked),
            (.expiresIn, pregenerated.expiresIn != nil),
            (.clientID, oauth.clientID != nil), (.clientSecretStdin, oauth.clientSecretStdin),
            (.redirectURL, oauth.redirectURL != nil), (.oob, oauth.oob), (.noBrowser, oauth.noBrowser),
            (.timeout, oauth.timeout != nil), (.p12, webTier.p12 != nil), (.kerberos, webTier.kerberos),
            (.allowBasicOverHttp, webTier.allowBasicOverHttp),
        ]
        return Set(present.filter(\.1).map(\.0))
    }

    /// The kind of sign-in the options ask for.
    var mode: LoginMode {
        LoginMode(given: given, clientSecretSet: oauth.clientSecretStdin || clientSecretInEnvironment != nil)
    }

    /// PORTAL_AUTH_CLIENT_SECRET, when set and not empty.
    var clientSecretInEnvironment: String? {
        ProcessInfo.processInfo.environment["PORTAL_AUTH_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Each group checks its own values; the mode's row of the table checks the combination.
    func validate() throws {
        try mode.rule.check(given)
        try validateAPIKeyOptions()
    }

    func run() async throws {
        try await runReportingErrors {
            switch mode {
            case .apiKey: try await loginWithAPIKey()
            case .pregenerated: try await loginWithPregeneratedToken()
            case .password: try await loginWithPassword()
            case .oauthUser: try await loginWithOAuthUser(try oauthUserConfiguration())
            case .oauthApplication:
                try await loginWithOAuthApplication(
                    portal: try ServerContext(url: try Self.portalRoot(place.portal!)), clientID: oauth.clientID!,
                    expirationMinutes: credentials.expiration ?? 120)
            case .configFile: try await loginWithConfigFile(place.config!)
            case .clientCertificate: try await loginWithClientCertificate(path: webTier.p12!)
            case .kerberosTicket: try await loginWithKerberosTicket()
            }
        }
    }
}
