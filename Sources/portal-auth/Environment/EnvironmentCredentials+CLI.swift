// What the CLI says of the environment's credential (the library's PortalAuthEnvironment reads it).
import PortalAuth
import PortalAuthEnvironment
import Synchronization

extension EnvironmentCredentials {
    /// The environment's credential, `ARCGIS_HOST` read as the CLI reads a portal URL argument
    /// (a page of the portal is the portal, with a note).
    static func read() throws -> EnvironmentCredentials? {
        try read(readingHost: { try PortalURLInput.read($0, source: "ARCGIS_HOST") })
    }

    /// One line saying what the environment supplies, for `doctor` and `status`.
    var summary: String {
        "the environment (\(variables.joined(separator: ", "))) supplies a credential for \(portal) and its "
            + "federated servers"
            + ((try? Self.secretOrigin("ARCGIS_API_KEY")) != nil && !source.variables.contains("ARCGIS_API_KEY")
                ? " (ARCGIS_API_KEY is ignored while another pair is set)" : "")
    }

    /// What `doctor` and `status` say of the environment: the variables and the portal, or why
    /// they cannot be used; nil when no credential variable is set.
    static func report() -> String? {
        do {
            return try read()?.summary
        } catch let error as PortalAuthError {
            return "the environment's credential cannot be used: \(error.cliMessage)"
        } catch {
            return "the environment's credential cannot be used: \(error)"
        }
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

    /// What names the API key in use (`ARCGIS_API_KEY`, `ARCGIS_API_KEY_FILE` or the systemd
    /// credential), for the remedy of a refused key.
    static var apiKeyOrigin: String {
        guard let inUse, case .apiKey(let secret) = inUse.source else { return "ARCGIS_API_KEY" }
        return secret.origin.description
    }
}

/// Whether this process presents the API key of `ARCGIS_API_KEY`: a refused key is then the
/// variable's to fix, not one to store.
let environmentAPIKeyInUse = Atomic<Bool>(false)

extension PortalAuthError {
    /// This error with the remedy it has when the API key in use came from the environment.
    func fromEnvironmentKey() -> PortalAuthError { fromEnvironmentKey(named: EnvironmentCredentials.apiKeyOrigin) }
}
