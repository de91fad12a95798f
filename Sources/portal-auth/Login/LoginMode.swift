import ArgumentParser

/// An option of `login`, named as it is typed; the order of the cases is the order messages list them in.
enum LoginOption: String, CaseIterable, Sendable {
    case portal = "--portal", url = "--url", username = "--username", passwordStdin = "--password-stdin"
    case expiration = "--expiration", timeout = "--timeout", redirectURL = "--redirect-url", oob = "--oob"
    case noBrowser = "--no-browser", referer = "--referer", tokenStdin = "--token-stdin", expiresIn = "--expires-in"
    case clientID = "--client-id", clientSecretStdin = "--client-secret-stdin", p12 = "--p12", kerberos = "--kerberos"
    case allowBasicOverHttp = "--allow-basic-over-http", config = "--config", rememberPassword = "--remember-password"
    case apiKeyStdin = "--api-key-stdin", expires = "--expires", host = "--host", unchecked = "--unchecked"
}

/// The kind of sign-in a `login` command line asks for. Its options say which (``init(given:clientSecretSet:)``);
/// the table (``rule``) says what else each takes and needs.
enum LoginMode: Sendable {
    case configFile, clientCertificate, kerberosTicket, apiKey, pregenerated, oauthUser, oauthApplication, password

    /// The mode the given options ask for: the first of `--config`, `--p12`, `--kerberos`, `--api-key-stdin`, `--token-stdin`
    /// and `--client-id` given (with a client secret: the app's own sign-in); a password sign-in otherwise.
    init(given: Set<LoginOption>, clientSecretSet: Bool) {
        let chosenBy: [(LoginOption, LoginMode)] = [
            (.config, .configFile), (.p12, .clientCertificate), (.kerberos, .kerberosTicket),
            (.apiKeyStdin, .apiKey), (.tokenStdin, .pregenerated),
            (.clientID, clientSecretSet ? .oauthApplication : .oauthUser),
        ]
        self = chosenBy.first { given.contains($0.0) }?.1 ?? .password
    }

    /// What this mode takes and needs.
    var rule: LoginRule {
        switch self {
        case .configFile: LoginRule.configFile
        case .clientCertificate: LoginRule.clientCertificate
        case .kerberosTicket: LoginRule.kerberosTicket
        case .apiKey: LoginRule.apiKey
        case .pregenerated: LoginRule.pregenerated
        case .oauthUser: LoginRule.oauthUser
        case .oauthApplication: LoginRule.oauthApplication
        case .password: LoginRule.password
        }
    }
}

/// One row of the table: the options a sign-in mode takes, the ones it needs, and how a message names it.
struct LoginRule: Sendable {
    /// How a message names the mode ("--config").
    let named: String
    /// Every option the mode takes; any other is refused.
    let takes: Set<LoginOption>
    /// For each set, one of its options must be given, or the message is the error.
    var needs: [(anyOf: Set<LoginOption>, message: String)] = []
    /// Options that exclude each other within the mode.
    var exclusive: [(LoginOption, LoginOption)] = []
    /// What follows "X cannot be combined with MODE: " (nil: nothing).
    var advice: String? = nil

    /// Throws the first thing wrong with `given`: a missing option, then options the mode does not take.
    func check(_ given: Set<LoginOption>) throws {
        for need in needs where need.anyOf.isDisjoint(with: given) { throw ValidationError(need.message) }
        let extra = LoginOption.allCases.filter { given.contains($0) && !takes.contains($0) }.map(\.rawValue)
        if !extra.isEmpty {
            let combined = "\(extra.joined(separator: ", ")) cannot be combined with \(named)"
            throw ValidationError(advice.map { "\(combined): \($0)" } ?? combined)
        }
        for (one, other) in exclusive where given.contains(one) && given.contains(other) {
            throw ValidationError("\(one.rawValue) and \(other.rawValue) cannot be used together")
        }
    }
}

extension LoginRule {
    static let configFile = LoginRule(
        named: "--config", takes: [.config, .noBrowser, .clientSecretStdin],
        advice: "set the matching key in the file instead (see config/README.md)")
    static let clientCertificate = LoginRule(
        named: "--p12", takes: [.url, .p12, .passwordStdin],
        needs: [([.url], "--p12 needs --url URL (the https server to present it to)")])
    static let kerberosTicket = LoginRule(
        named: "--kerberos", takes: [.url, .kerberos],
        needs: [([.url], "--kerberos needs --url URL (the https server to present it to)")],
        advice: "it signs in with your ticket (drop --kerberos to sign in with --username and a password)")
    static let apiKey = LoginRule(
        named: "--api-key-stdin", takes: [.portal, .apiKeyStdin, .expires, .expiresIn, .host],
        needs: [([.portal], "--api-key-stdin needs --portal URL (the portal of the key)")],
        exclusive: [(.expires, .expiresIn)])
    static let pregenerated = LoginRule(
        named: "--token-stdin", takes: [.portal, .url, .tokenStdin, .expiresIn, .referer, .username, .unchecked],
        needs: [([.url, .portal], "--token-stdin needs --url URL (the server the token is for)")])
    static let oauthUser = LoginRule(
        named: "--client-id (a browser sign-in)",
        takes: [.portal, .clientID, .expiration, .timeout, .redirectURL, .oob, .noBrowser],
        needs: [([.portal], "--client-id needs --portal URL (the portal the app is registered in)")],
        exclusive: [(.redirectURL, .oob)])
    static let oauthApplication = LoginRule(
        named: "an app sign-in (--client-id with a client secret)",
        takes: [.portal, .clientID, .clientSecretStdin, .expiration],
        needs: [([.portal], "--client-id needs --portal URL (the portal the app is registered in)")])
    static let password = LoginRule(
        named: "a password sign-in (--username)",
        takes: [
            .portal, .url, .username, .passwordStdin, .rememberPassword, .expiration, .referer, .allowBasicOverHttp,
        ],
        needs: [
            (
                [.portal, .url],
                "say where to sign in: --portal URL --username USER [--password-stdin], --portal URL --client-id ID, "
                    + "--url URL --token-stdin, or --config FILE"
            ),
            (
                [.username],
                "--username is required for a password sign-in (or use --client-id for OAuth, --token-stdin for a "
                    + "pregenerated token)"
            ),
        ])
}
