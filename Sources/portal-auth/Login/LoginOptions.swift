// The options `login` takes, one group per part of a sign-in: where, with a password, with a
// pregenerated token, with OAuth, at the web tier. Which groups a sign-in may use is LoginMode's table.
import ArgumentParser
import PortalAuth
import PortalAuthToken

/// Where to sign in: `--portal`, `--url` or a `--config` file that says it all.
struct LoginPlaceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The portal (or ArcGIS Server) URL to sign in to.", valueName: "url"))
    var portal: String?

    @Option(
        help: ArgumentHelp(
            "The server URL to sign in to: a pregenerated token's, or one secured at the web tier.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("A JSON file describing the sign-in (see config/).", valueName: "file"))
    var config: String?
}

/// A user name and password, and the ArcGIS token they get.
struct LoginPasswordOptions: ParsableArguments {
    @Option(help: "The user name (token sign-in).")
    var username: String?

    @Flag(help: "Read the password from standard input (otherwise it is asked for on the terminal).")
    var passwordStdin = false

    @Flag(help: "Keep the password in the store (keyring or file) to renew the token unattended (token sign-in).")
    var rememberPassword = false

    @Option(
        help: ArgumentHelp(
            "Token sign-in: the token lifetime in minutes (default 60). OAuth user: the refresh token lifetime "
                + "(default 20160). OAuth app: the app token lifetime (default 120). Or with a unit: 12h, 14d.",
            valueName: "minutes"), transform: { try parseMinutes($0, option: "--expiration") })
    var expiration: Int?

    @Option(
        help:
            "Bind the token to this referer (client=referer): it then works only with a Referer header of this value. Without it, the token is bound to this machine's IP address (client=requestip) and works as it is."
    )
    var referer: String?

    func validate() throws {
        if let expiration, expiration <= 0 {
            throw ValidationError("--expiration must be a positive number of minutes")
        }
        guard let referer else { return }
        guard !referer.isEmpty else {
            throw ValidationError(
                "--referer \"\" would bind the token to no referer, which the server refuses: give a referer (then "
                    + "send it as the Referer header with the token), or drop --referer to bind the token to this "
                    + "machine's IP address"
            )
        }
        do { try TokenCredential.checkReferer(referer) } catch let error as PortalAuthError {
            throw ValidationError("--referer: \(error.message)")
        }
    }
}

/// A token made elsewhere, read from standard input; `--expires-in` also sets an API key's lifetime.
struct LoginPregeneratedTokenOptions: ParsableArguments {
    @Flag(help: "Read a pregenerated token from standard input.")
    var tokenStdin = false

    @Option(
        help: ArgumentHelp(
            "When the pregenerated token (or API key) expires, in seconds from now, or with a unit: 12h, 30d.",
            valueName: "seconds"), transform: { try parseSeconds($0, option: "--expires-in") })
    var expiresIn: Int?

    @Flag(
        help:
            "Store the pregenerated token without first sending it to its server (which refuses a mistyped or expired one); for a server not reachable now."
    )
    var unchecked = false
}

/// An app registered in the portal: a user's browser sign-in, or the app's own (client credentials).
struct LoginOAuthOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The client ID of the app registered in the portal (OAuth sign-in).", valueName: "id"))
    var clientID: String?

    @Flag(
        help:
            "Read the app's client secret from standard input (OAuth application sign-in; or set PORTAL_AUTH_CLIENT_SECRET)."
    )
    var clientSecretStdin = false

    @Option(
        help: ArgumentHelp(
            "The redirect URL registered for the app (default http://127.0.0.1/oauth/callback on a free port).",
            valueName: "url"))
    var redirectURL: String?

    @Flag(help: "Out-of-band OAuth sign-in: the portal shows a code to paste (urn:ietf:wg:oauth:2.0:oob).")
    var oob = false

    @Flag(help: "Print the sign-in URL instead of opening a browser (for SSH sessions).")
    var noBrowser = false

    @Option(
        help: ArgumentHelp(
            "How long to wait for the browser sign-in, in seconds (default 300), or with a unit: 10m.",
            valueName: "seconds"), transform: { try parseSeconds($0, option: "--timeout") })
    var timeout: Int?

    func validate() throws {
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be a positive number of seconds") }
    }
}

/// A server secured at the web tier (it answers 401): a client certificate, a Kerberos ticket, HTTP Basic.
struct LoginWebTierOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A PKCS#12 (.p12/.pfx) client certificate to present to --url's host; its password comes from "
                + "--password-stdin or the prompt.",
            valueName: "file"))
    var p12: String?

    @Flag(help: "Sign in to a Negotiate (Kerberos) server with your current ticket (from kinit), without a password.")
    var kerberos = false

    @Flag(help: "Let HTTP Basic send the password over plain http (it travels in clear; off by default).")
    var allowBasicOverHttp = false
}
