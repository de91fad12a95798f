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
    /// What the environment signs in with. The secrets are never printed, logged or stored.
    enum Source: Sendable {
        /// `ARCGIS_CLIENT` and `ARCGIS_SECRET`: an OAuth app's client credentials.
        case clientCredentials(clientID: String, clientSecret: String)
        /// `ARCGIS_USER` and `ARCGIS_PASSWORD`: a username and password (`generateToken`).
        case password(username: String, password: String)
        /// `ARCGIS_API_KEY`: an API key, used as the token of the portal's own context.
        case apiKey(String)

        /// The variables this source was read from.
        var variables: [String] {
            switch self {
            case .clientCredentials: return ["ARCGIS_CLIENT", "ARCGIS_SECRET"]
            case .password: return ["ARCGIS_USER", "ARCGIS_PASSWORD"]
            case .apiKey: return ["ARCGIS_API_KEY"]
            }
        }
    }

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
            + (Self.variable("ARCGIS_API_KEY") != nil && !source.variables.contains("ARCGIS_API_KEY")
                ? " (ARCGIS_API_KEY is ignored while another pair is set)" : "")
    }

    /// Whether any `ARCGIS_` credential variable is set (not empty): a cheap test for the
    /// `token` fast path, which leaves such command lines to the full command.
    static var anyVariableSet: Bool {
        credentialVariables.joined().contains { variable($0) != nil }
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
    /// API key (the first complete pair wins); nil when none is set.
    private static func readSource() throws -> Source? {
        for pair in credentialVariables {
            let values = pair.map(variable)
            if values.allSatisfy({ $0 != nil }) {
                switch pair[0] {
                case "ARCGIS_CLIENT": return .clientCredentials(clientID: values[0]!, clientSecret: values[1]!)
                case "ARCGIS_USER": return .password(username: values[0]!, password: values[1]!)
                default: return .apiKey(values[0]!)
                }
            }
            if let given = zip(pair, values).first(where: { $0.1 != nil }),
                let missing = zip(pair, values).first(where: { $0.1 == nil })
            {
                throw PortalAuthError(
                    .invalidArgument, "\(given.0) is set but \(missing.0) is not",
                    remedy: .fixEnvironment(variables: pair))
            }
        }
        return nil
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
        default:
            let names = variables.joined(separator: " and ")
            return variables.count == 1
                ? "check \(names), or unset it" : "set both \(names) to values that work, or neither"
        }
    }

    /// A variable's value; nil when it is not set or empty.
    static func variable(_ name: String) -> String? {
        environmentVariable(name).flatMap { $0.isEmpty ? nil : $0 }
    }
}
