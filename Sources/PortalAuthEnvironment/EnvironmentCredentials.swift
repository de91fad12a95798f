// Credentials from the environment: ARCGIS_HOST with ARCGIS_CLIENT + ARCGIS_SECRET, ARCGIS_USER +
// ARCGIS_PASSWORD, or ARCGIS_API_KEY, the variables R-ArcGIS/arcgisutils reads.
public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A credential the environment supplies for one portal (`ARCGIS_HOST`), used in memory only:
/// nothing it signs in with or obtains is stored.
///
/// Read it with ``read(from:readingHost:)``, hand it to a manager whose store is memory with
/// ``EnvironmentSignInHandler`` and ``EnvironmentRenewal``, present it with ``present(in:)`` and
/// ``signIn(in:)``, and ask ``answers(for:in:askedBy:)`` which URLs are its own: the rest
/// are the stored credentials'.
public struct EnvironmentCredentials: Sendable {
    /// What the environment signs in with. The secrets are never printed, logged or stored; one
    /// that comes from a file is read again when the file changes (``RotatingSecret``).
    public enum Source: Sendable {
        /// `ARCGIS_CLIENT` and `ARCGIS_SECRET`: an OAuth app's client credentials.
        case clientCredentials(clientID: String, clientSecret: RotatingSecret)
        /// `ARCGIS_USER` and `ARCGIS_PASSWORD`: a username and password (`generateToken`).
        case password(username: String, password: RotatingSecret)
        /// `ARCGIS_API_KEY`: an API key, used as the token of the portal's own context.
        case apiKey(RotatingSecret)

        /// The secret, as last read from its variable or file.
        public var secret: RotatingSecret {
            switch self {
            case .clientCredentials(_, let secret), .password(_, let secret), .apiKey(let secret): return secret
            }
        }

        /// The variables (or the systemd credential) this source was read from.
        public var variables: [String] {
            switch self {
            case .clientCredentials: return ["ARCGIS_CLIENT", secret.origin.description]
            case .password: return ["ARCGIS_USER", secret.origin.description]
            case .apiKey: return [secret.origin.description]
            }
        }
    }

    /// The variables that hold a secret, each of which a file can supply instead (`NAME_FILE`, or
    /// `$CREDENTIALS_DIRECTORY/NAME` under systemd).
    public static let secretVariables = ["ARCGIS_SECRET", "ARCGIS_PASSWORD", "ARCGIS_API_KEY"]

    /// The credential variables, in pairs (a key alone), in the order they are tried.
    public static let credentialVariables = [
        ["ARCGIS_CLIENT", "ARCGIS_SECRET"], ["ARCGIS_USER", "ARCGIS_PASSWORD"], ["ARCGIS_API_KEY"],
    ]

    /// The portal (`ARCGIS_HOST`).
    public let portal: ServerContext
    /// What it signs in with.
    public let source: Source

    /// The variables in use, `ARCGIS_HOST` first: what a report names (never a value).
    public var variables: [String] { ["ARCGIS_HOST"] + source.variables }

    /// Whether its secret (a password, an app's secret, an API key) is read from a file, which
    /// may rotate while the process runs.
    public var readsASecretFile: Bool { source.secret.origin.secretFile != nil }

    /// Whether any `ARCGIS_` credential variable, or a file standing for one, is set (not empty):
    /// a test that reads no file, for a caller that leaves such environments to a full reading.
    public static func anyVariableSet(in environment: EnvironmentSecretResolver = .process) -> Bool {
        credentialVariables.joined().contains { environment.variable($0) != nil }
            || secretVariables.contains { environment.variable($0 + "_FILE") != nil }
            || environment.variable("CREDENTIALS_DIRECTORY") != nil
    }

    /// The credential `environment` supplies; nil when it sets none of the credential variables.
    /// A pair with one half missing or no `ARCGIS_HOST` throws an
    /// ``PortalAuthError/Code/invalidArgument`` error whose remedy names the variables to set; a
    /// plain http `ARCGIS_HOST` an ``PortalAuthError/Code/invalidURL`` one. `readingHost` reads
    /// `ARCGIS_HOST` as the caller reads a portal's URL (by default, a strict absolute URL), and
    /// its errors are thrown as they are.
    public static func read(
        from environment: EnvironmentSecretResolver = .process,
        readingHost: (String) throws -> URL = { try StrictURL.parse($0).url }
    ) throws -> EnvironmentCredentials? {
        guard let source = try readSource(from: environment) else { return nil }
        guard let host = environment.variable("ARCGIS_HOST") else {
            throw PortalAuthError(
                .invalidArgument,
                "\(source.variables.joined(separator: " and ")) \(source.variables.count == 1 ? "is" : "are") set but "
                    + "ARCGIS_HOST is not",
                remedy: .fixEnvironment(variables: ["ARCGIS_HOST"]))
        }
        return EnvironmentCredentials(portal: try portal(from: try readingHost(host)), source: source)
    }

    /// The source the credential variables make: client credentials, then a password, then an
    /// API key (the first complete pair wins); nil when none is set. A secret comes from its
    /// variable or a file (``EnvironmentSecretResolver/origin(of:)``), and a file is read (and
    /// checked) now.
    private static func readSource(from environment: EnvironmentSecretResolver) throws -> Source? {
        try environment.checkCredentialsDirectory(names: secretVariables)
        for pair in credentialVariables {
            let origins = try pair.map { try secretOrigin($0, in: environment) }
            if origins.allSatisfy({ $0 != nil }) {
                let secret = try RotatingSecret(origin: origins.last!!, resolver: environment)
                switch pair[0] {
                case "ARCGIS_CLIENT":
                    return .clientCredentials(clientID: environment.variable(pair[0])!, clientSecret: secret)
                case "ARCGIS_USER": return .password(username: environment.variable(pair[0])!, password: secret)
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
    public static func secretOrigin(
        _ name: String, in environment: EnvironmentSecretResolver = .process
    ) throws -> EnvironmentSecretOrigin? {
        guard secretVariables.contains(name) else {
            return environment.variable(name).map { _ in .variable(name: name) }
        }
        return try environment.origin(of: name)
    }

    /// `url` (`ARCGIS_HOST`) as a portal context, over https only.
    private static func portal(from url: URL) throws -> ServerContext {
        guard url.scheme?.lowercased() == "https" else {
            throw PortalAuthError(
                .invalidURL,
                "ARCGIS_HOST is \(ServerContext.describe(url)), a plain http URL: the credentials would travel "
                    + "in clear",
                remedy: .useHTTPS(url: url))
        }
        return try ServerContext(url: url)
    }
}
