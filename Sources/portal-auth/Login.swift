import ArgumentParser
import PortalAuth
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
            ArcGIS token (username and password):
              printf '%s' "$PASS" | portal-auth login --portal https://host/portal --username alice --password-stdin
            Pregenerated token (made elsewhere):
              printf '%s' "$TOKEN" | portal-auth login --url https://host/server --token-stdin --expires-in 3600
            A credential already stored stays in place if the new sign-in fails.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The portal (or ArcGIS Server) URL to sign in to.", valueName: "url"))
    var portal: String?

    @Option(help: "The user name (token sign-in).")
    var username: String?

    @Flag(help: "Read the password from standard input (otherwise it is asked for on the terminal).")
    var passwordStdin = false

    @Option(help: ArgumentHelp("The token lifetime to ask for, in minutes (the server may cap it).", valueName: "minutes"))
    var expiration: Int = 60

    @Option(help: ArgumentHelp("The server URL a pregenerated token is for.", valueName: "url"))
    var url: String?

    @Flag(help: "Read a pregenerated token from standard input.")
    var tokenStdin = false

    @Option(help: ArgumentHelp("When the pregenerated token expires, in seconds from now.", valueName: "seconds"))
    var expiresIn: Int?

    @Option(help: "The referer the token is bound to (sent as the Referer header with it).")
    var referer: String?

    func validate() throws {
        if tokenStdin {
            guard url != nil || portal != nil else { throw ValidationError("--token-stdin needs --url URL (the server the token is for)") }
            guard !passwordStdin else { throw ValidationError("--token-stdin and --password-stdin cannot be used together") }
        } else {
            guard portal != nil || url != nil else { throw ValidationError("say where to sign in: --portal URL --username USER [--password-stdin], or --url URL --token-stdin") }
            guard username != nil else { throw ValidationError("--username is required for a password sign-in (or use --token-stdin for a pregenerated token)") }
            guard expiresIn == nil else { throw ValidationError("--expires-in goes with --token-stdin; use --expiration MINUTES for a token sign-in") }
        }
        guard expiration > 0 else { throw ValidationError("--expiration must be a positive number of minutes") }
    }

    func run() async throws {
        try await runReportingErrors {
            if tokenStdin { try await loginWithPregeneratedToken() } else { try await loginWithPassword() }
        }
    }

    private func loginWithPassword() async throws {
        let target = try parseURL(portal ?? url!)
        let context = try ServerContext(url: target)
        let manager = try global.makeManager()
        // Fail on an unusable store before the password goes anywhere.
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let password: String
        if passwordStdin {
            password = try readSecretFromStdin(what: "password", flag: "--password-stdin")
        } else if stdinIsTerminal {
            password = try promptHidden("Password for \(username!) @ \(context): ")
            guard !password.isEmpty else { throw PortalAuthError(.secretMissing, "no password was typed") }
        } else {
            throw PortalAuthError(.secretMissing, "no password: stdin is not a terminal, so pipe the password and add --password-stdin")
        }
        let isPortal = ServerContext.arcGISServerRoot(of: target) == nil
        let tokenServiceURL = await manager.services.tokenServiceURL(for: context, isPortal: isPortal)
        let credential = try await TokenCredential.generate(serverContext: context, tokenServiceURL: tokenServiceURL, username: username!, password: password,
                                                            referer: referer ?? TokenCredential.defaultReferer, expirationMinutes: expiration,
                                                            keepPassword: false, services: manager.services)
        try await manager.arcGISCredentialStore.add(credential)
        output("Signed in to \(context) as \(username!)\(credential.tokenInfo.expirationDate.map { "; the token expires \($0.iso8601)" } ?? "") (stored in \(manager.arcGISCredentialStore.backend.name)).")
    }

    private func loginWithPregeneratedToken() async throws {
        let target = try parseURL(url ?? portal!)
        let manager = try global.makeManager()
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let token = try readSecretFromStdin(what: "token", flag: "--token-stdin")
        let credential = try PregeneratedTokenCredential(url: target, token: token, expiresIn: expiresIn.map(Double.init), referer: referer, username: username)
        try await manager.arcGISCredentialStore.add(credential)
        output("Stored a pregenerated token for \(credential.serverContext)\(credential.tokenInfo.expirationDate.map { "; it expires \($0.iso8601)" } ?? " with no expiry") (in \(manager.arcGISCredentialStore.backend.name)).")
    }
}
