// Credentials from the environment: ARCGIS_HOST with ARCGIS_CLIENT + ARCGIS_SECRET, ARCGIS_USER +
// ARCGIS_PASSWORD, or ARCGIS_API_KEY, the variables R-ArcGIS/arcgisutils reads.
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A credential the environment supplies for one portal (`ARCGIS_HOST`), used in memory only:
/// nothing it signs in with or obtains is stored.
struct EnvironmentCredentials: Sendable {
    /// What the environment signs in with. The secrets are never printed, logged or stored; one
    /// that comes from a file is read again when the file changes (``RotatingSecret``).
    enum Source: Sendable {
        /// `ARCGIS_CLIENT` and `ARCGIS_SECRET`: an OAuth app's client credentials.
        case clientCredentials(clientID: String, clientSecret: RotatingSecret)
        /// `ARCGIS_USER` and `ARCGIS_PASSWORD`: a username and password (`generateToken`).
        case password(username: String, password: RotatingSecret)
        /// `ARCGIS_API_KEY`: an API key, used as the token of the portal's own context.
        case apiKey(RotatingSecret)

        /// The secret, as last read from its variable or file.
        var secret: RotatingSecret {
            switch self {
            case .clientCredentials(_, let secret), .password(_, let secret), .apiKey(let secret): return secret
            }
        }

        /// The variables (or the systemd credential) this source was read from.
        var variables: [String] {
            switch self {
            case .clientCredentials: return ["ARCGIS_CLIENT", secret.origin.description]
            case .password: return ["ARCGIS_USER", secret.origin.description]
            case .apiKey: return [secret.origin.description]
            }
        }
    }

    /// The variables that hold a secret, each of which a file can supply instead (`NAME_FILE`, or
    /// `$CREDENTIALS_DIRECTORY/NAME` under systemd).
    static let secretVariables = ["ARCGIS_SECRET", "ARCGIS_PASSWORD", "ARCGIS_API_KEY"]

    /// The credential variables, in pairs (a key alone).
    static let credentialVariables = [
        ["ARCGIS_CLIENT", "ARCGIS_SECRET"], ["ARCGIS_USER", "ARCGIS_PASSWORD"], ["ARCGIS_API_KEY"],
    ]

    /// The portal (`ARCGIS_HOST`).
    let portal: ServerContext
    /// What it signs in with.
    let source: Source

    /// The variables in use, `ARCGIS_HOST` first: what `doctor` and `status` name (never a value).
    var variables: [String] { ["ARCGIS_HOST"] + source.variables }

    /// One line saying what the environment supplies, for `doctor` and `status`.
    var summary: String {
        "the environment (\(variables.joined(separator: ", "))) supplies a credential for \(portal) and its "
            + "federated servers"
            + ((try? Self.secretOrigin("ARCGIS_API_KEY")) != nil && !source.variables.contains("ARCGIS_API_KEY")
                ? " (ARCGIS_API_KEY is ignored while another pair is set)" : "")
    }

    /// Whether any `ARCGIS_` credential variable is set (not empty): a cheap test for the
    /// `token` fast path, which leaves such command lines to the full command.
    static var anyVariableSet: Bool {
        credentialVariables.joined().contains { variable($0) != nil }
            || secretVariables.contains { variable($0 + "_FILE") != nil } || variable("CREDENTIALS_DIRECTORY") != nil
    }

    /// The credential the environment supplies; nil when it sets none of the credential variables.
    /// A pair with one half missing, or no `ARCGIS_HOST`, throws a usage error naming the variable.
    static func read() throws -> EnvironmentCredentials? {
        guard let source = try readSource() else { return nil }
        guard let host = variable("ARCGIS_HOST") else {
            throw PortalAuthError(
                .invalidArgument,
                "\(source.variables.joined(separator: " and ")) \(source.variables.count == 1 ? "is" : "are") set but "
                    + "ARCGIS_HOST is not",
                remedy: .fixEnvironment(variables: ["ARCGIS_HOST"]))
        }
        return EnvironmentCredentials(portal: try portal(from: host), source: source)
    }

    /// The source the credential variables make: client credentials, then a password, then an
    /// API key (the first complete pair wins); nil when none is set. A secret comes from its
    /// variable or a file (``secretOrigin(_:)``), and a file is read (and checked) now.
    private static func readSource() throws -> Source? {
        try EnvironmentSecretResolver.process.checkCredentialsDirectory(names: secretVariables)
        for pair in credentialVariables {
            let origins = try pair.map(secretOrigin)
            if origins.allSatisfy({ $0 != nil }) {
                let secret = try RotatingSecret(origin: origins.last!!)
                switch pair[0] {
                case "ARCGIS_CLIENT": return .clientCredentials(clientID: variable(pair[0])!, clientSecret: secret)
                case "ARCGIS_USER": return .password(username: variable(pair[0])!, password: secret)
                default: return .apiKey(secret)
                }
            }
            if let given = zip(pair, origins).first(where: { $0.1 != nil }),
                let missing = zip(pair, origins).first(where: { $0.1 == nil })
            {
                throw PortalAuthError(
                    .invalidArgument, "\(given.1!) is set but \(missing.0) is not",
                    remedy: .fixEnvironment(variables: pair))
            }
        }
        return nil
    }

    /// Where the variable `name` comes from: a secret's variable, `NAME_FILE` or systemd's
    /// credential (two of them at once is an error); another variable's value.
    static func secretOrigin(_ name: String) throws -> EnvironmentSecretOrigin? {
        guard secretVariables.contains(name) else { return variable(name).map { _ in .variable(name: name) } }
        return try EnvironmentSecretResolver.process.origin(of: name)
    }

    /// `ARCGIS_HOST` read as the CLI reads a URL argument, over https only, as a portal context.
    private static func portal(from host: String) throws -> ServerContext {
        let url = try PortalURLInput.read(host, source: "ARCGIS_HOST")
        guard url.scheme?.lowercased() == "https" else {
            throw PortalAuthError(
                .invalidURL,
                "ARCGIS_HOST is \(ServerContext.describe(url)), a plain http URL: the credentials would travel "
                    + "in clear",
                remedy: .useHTTPS(url: url))
        }
        return try ServerContext(url: url)
    }

    /// What to do about the variables an error names (``PortalAuthError/Remedy/fixEnvironment(variables:)``).
    static func advice(fixing variables: [String]) -> String {
        switch variables {
        case ["ARCGIS_HOST"]: return "set ARCGIS_HOST to the portal's URL, for example https://www.arcgis.com"
        case ["ARCGIS_API_KEY"]:
            return "set ARCGIS_API_KEY to a valid key, or unset it to use the stored credentials"
        case ["ARCGIS_API_KEY_FILE"]:
            return "put a valid key in the file ARCGIS_API_KEY_FILE names, or unset it to use the stored credentials"
        case ["$CREDENTIALS_DIRECTORY/ARCGIS_API_KEY"]:
            return "put a valid key in $CREDENTIALS_DIRECTORY/ARCGIS_API_KEY (the service's LoadCredential=)"
        case _ where variables.count > 1 && Set(variables.map(secretName)).count == 1:
            return "keep one of \(variables.joined(separator: " and ")) and remove the other"
        default:
            let names = variables.joined(separator: " and ")
            return variables.count == 1
                ? "check \(names), or unset it" : "set both \(names) to values that work, or neither"
        }
    }

    /// The secret variable a name of its origin stands for: `ARCGIS_PASSWORD` for
    /// `ARCGIS_PASSWORD_FILE` and `$CREDENTIALS_DIRECTORY/ARCGIS_PASSWORD`.
    private static func secretName(_ origin: String) -> String {
        var name = origin.split(separator: "/").last.map(String.init) ?? origin
        if name.hasSuffix("_FILE") { name.removeLast(5) }
        return name
    }

    /// A variable's value; nil when it is not set or empty.
    static func variable(_ name: String) -> String? {
        environmentVariable(name).flatMap { $0.isEmpty ? nil : $0 }
    }
}
