/// Where a secret the environment supplies comes from: the variable itself, a file its `_FILE`
/// variable names (the Docker convention, and a Kubernetes Secret mounted as a folder), or a
/// systemd credential (`LoadCredential=NAME:…`, a file named exactly as the variable in
/// `$CREDENTIALS_DIRECTORY`).
public enum EnvironmentSecretOrigin: Hashable, Sendable, CustomStringConvertible {
    /// The variable `name` holds the secret.
    case variable(name: String)
    /// The variable `variable` (`NAME_FILE`) names the file.
    case file(SecretFile, variable: String)
    /// The file `$CREDENTIALS_DIRECTORY/name`.
    case credential(SecretFile, name: String)

    /// The file the secret is read from; nil for a variable.
    public var secretFile: SecretFile? {
        switch self {
        case .variable: return nil
        case .file(let file, _), .credential(let file, _): return file
        }
    }

    /// What names the secret, for messages (never its value): `ARCGIS_PASSWORD`,
    /// `ARCGIS_PASSWORD_FILE` or `$CREDENTIALS_DIRECTORY/ARCGIS_PASSWORD`.
    public var description: String {
        switch self {
        case .variable(let name): return name
        case .file(_, let variable): return variable
        case .credential(_, let name): return "$CREDENTIALS_DIRECTORY/\(name)"
        }
    }
}
