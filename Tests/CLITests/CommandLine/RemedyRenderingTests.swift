import Foundation
import PortalAuth
import Testing

@testable import portal_auth

/// The CLI's rendering of each remedy: one line naming the command to run or the option to give.
@Suite struct RemedyRenderingTests {
    static let portal = try! ServerContext("https://host.example.com/portal")
    static let server = try! ServerContext("https://host.example.com/server")

    typealias Remedy = PortalAuthError.Remedy

    static let renderings: [(Remedy, String)] = [
        (.signIn(.token(portal, username: "alice")), "run portal-auth login --portal \(portal.url) --username alice"),
        (.signIn(.token(server)), "run portal-auth login --portal \(server.url) --username USER"),
        (
            .signIn(.init(kind: "oauth-user", serverContext: portal, clientID: "app1")),
            "run portal-auth login --portal \(portal.url) --client-id app1"
        ),
        (
            .signIn(.init(kind: "oauth-application", serverContext: portal, clientID: "app2")),
            "run printf %s \"$SECRET\" | portal-auth login --portal \(portal.url) --client-id app2 --client-secret-stdin"
        ),
        (
            .signIn(.init(kind: "pregenerated-token", serverContext: server)),
            "get a new token and run portal-auth login --url \(server.url) --token-stdin"
        ),
        (.signIn(.identityAwareProxy()), "run portal-auth login --config IAP.json (see config/iap.example.json)"),
        (
            .signIn(.identityAwareProxy(configurationFile: "/etc/iap.json")),
            "run portal-auth login --config /etc/iap.json"
        ),
        (
            .provideHTTPPassword(url: URL(string: "https://web.example.com/arcgis/rest/info?token=secret")!),
            "run portal-auth login --url https://web.example.com/arcgis/rest/info?token=*** --username USER --password-stdin"
        ),
        (
            .provideClientCertificate(host: "pki.example.com", port: 8443),
            "sign in with portal-auth login --url https://pki.example.com:8443 --p12 FILE --password-stdin"
        ),
        (
            .trustServer(host: "self.example.com", port: 443),
            "pass --cacert FILE (or set PORTAL_AUTH_CA_BUNDLE) with its CA, or trust it with portal-auth trust self.example.com:443"
        ),
        (
            .trustServerAgain(host: "h", port: 1),
            "if the change is expected, run portal-auth untrust h:1 and portal-auth trust h:1"
        ),
        (.provideCABundle(path: "/x.pem"), "check the path given by --cacert or PORTAL_AUTH_CA_BUNDLE"),
        (.provide(.username), "give one with --username"),
        (.provide(.password), "pipe it to --password-stdin or type it at the prompt"),
        (
            .provide(.token),
            "pipe it to --token-stdin, for example printf %s \"$TOKEN\" | portal-auth login --url URL --token-stdin"
        ),
        (.provide(.tokenLifetime), "give --expires-in SECONDS"),
        (.provide(.clientID), "give the app's client ID with --client-id"),
        (.provide(.clientSecret), "pipe it to --client-secret-stdin or set PORTAL_AUTH_CLIENT_SECRET"),
        (.useHTTPS(url: URL(string: "http://host/portal")!), "use the https URL"),
        (.allowBasicOverHTTP(host: server), "use its https URL, or allow it explicitly (--allow-basic-over-http)"),
        (.fixConfiguration(file: "iap.json", key: "client_id"), "the keys are described in config/README.md"),
        (.removeStoredCredential(server: portal.url), "remove it with portal-auth logout"),
        (.openSignInPageYourself, "set BROWSER, or use --no-browser and open the URL yourself"),
        (
            .raiseLimit(.signInTimeout, value: 300),
            "allow more time with --timeout SECONDS (or timeout_seconds in a --config file; it was 300)"
        ),
        (
            .raiseLimit(.responseSize, value: 1024),
            "if the server is trusted to send more, raise the limit (request: --max-response-size SIZE or PORTAL_AUTH_MAX_RESPONSE_SIZE; it was 1024 bytes)"
        ),
        (
            .raiseLimit(.requestTimeout, value: 60),
            "try again when the server is less busy, or allow more time (request: --timeout SECONDS; it was 60 s)"
        ),
        (.startSessionBus, "run under dbus-run-session, or choose --store file"),
        (
            .startSecretService,
            "start one, for example gnome-keyring-daemon --start --components=secrets, or choose --store file"
        ),
        (
            .unlockKeyring,
            "unlock it, for example printf %s \"$PASS\" | gnome-keyring-daemon --unlock --components=secrets, or choose --store file"
        ),
        (.checkCredentialStore, "run portal-auth doctor"),
        (.checkURL, "check the URL"),
        (.retryLater, "try again later"),
        (
            .fixEnvironment(variables: ["ARCGIS_API_KEY"]),
            "set ARCGIS_API_KEY to a valid key, or unset it to use the stored credentials"
        ),
        (
            .fixEnvironment(variables: ["ARCGIS_HOST"]),
            "set ARCGIS_HOST to the portal's URL, for example https://www.arcgis.com"
        ),
        (
            .fixEnvironment(variables: ["ARCGIS_USER", "ARCGIS_PASSWORD"]),
            "set both ARCGIS_USER and ARCGIS_PASSWORD to values that work, or neither"
        ),
        (.checkNetwork, "check the network, the DNS and https_proxy/http_proxy/no_proxy"),
        (.installLibrary(package: "libcurl4"), "install it, for example apt-get install libcurl4"),
        (
            .useOwnFolder(path: "/run/user/1/portal-auth"),
            "remove /run/user/1/portal-auth if you did not make it, or use a folder of your own (lock files: set XDG_RUNTIME_DIR or XDG_CACHE_HOME; --store file: set PORTAL_AUTH_FILE_STORE)"
        ),
        (.makePrivate(path: "/home/a/.local/share/portal-auth"), "run chmod go-rwx /home/a/.local/share/portal-auth"),
        (.moveAside(path: "/c.json"), "move /c.json aside (mv /c.json /c.json.bad) and sign in again"),
        (.removeStaleLock(path: "/l.lock"), "if no portal-auth command is running, remove /l.lock and try again"),
        (.reportToAdministrator(server: "idp.example.com"), "report it to the administrator of idp.example.com"),
        (
            .checkClock(server: portal.url),
            "check this machine's clock and the server's, then run portal-auth login again"
        ),
        (
            .checkAppRegistration(server: portal.url),
            "check --client-id and the app's redirect URLs in its registration (and that it allows sign-in)"
        ),
        (.startOver, "run the same portal-auth login again"),
        (
            .freePort(8765),
            "stop what listens there (ss -ltnp 'sport = :8765'), or register another --redirect-url"
        ),
        (
            .checkKerberos(principal: "alice@EXAMPLE.COM"),
            "check the user name and /etc/krb5.conf, or run kinit alice@EXAMPLE.COM first"
        ),
        (.checkPermissions(path: "/run/user/1"), "check that /run/user/1 exists and is writable"),
        (.provide(.referer), "give a one-line --referer, or drop it to bind the token to this machine's IP address"),
    ]

    @Test(arguments: renderings)
    func eachRemedyIsOneLine(remedy: Remedy, expected: String) {
        #expect(remedy.cliAdvice == expected)
        #expect(!expected.contains("\n"))
    }

    @Test func noRemedyAddsNothing() {
        #expect(Remedy.none.cliAdvice == nil)
        #expect(PortalAuthError(.httpError, "the server failed").cliMessage == "the server failed")
        // The message already names the file when no key is at fault.
        #expect(Remedy.fixConfiguration(file: "a.json", key: nil).cliAdvice == nil)
    }

    @Test func theMessageComesFirstThenTheCommand() {
        let error = PortalAuthError(
            .noCredential, "no credential for \(Self.portal)", remedy: .signIn(.token(Self.portal)))
        #expect(
            error.cliMessage
                == "no credential for \(Self.portal): run portal-auth login --portal \(Self.portal.url) --username USER"
        )
    }
}
