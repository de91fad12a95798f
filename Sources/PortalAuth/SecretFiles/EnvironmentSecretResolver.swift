#if canImport(Glibc)
import Glibc
#endif

/// Finds where the environment supplies a secret: the variable `NAME`, a file named by
/// `NAME_FILE`, or the systemd credential `$CREDENTIALS_DIRECTORY/NAME`. Two of them at once is an
/// error, never a silent choice; an empty variable counts as unset.
public struct EnvironmentSecretResolver: Sendable {
    private let lookup: @Sendable (String) -> String?

    /// A resolver reading variables through `lookup` (nil: not set).
    public init(lookup: @escaping @Sendable (String) -> String?) { self.lookup = lookup }

    /// A resolver reading this process's environment.
    public static let process = EnvironmentSecretResolver { name in
        getenv(name).map { String(cString: $0) }
    }

    /// Where `name`'s secret comes from; nil when nothing supplies it. Throws when more than one
    /// place does (the remedy names them).
    public func origin(of name: String) throws -> EnvironmentSecretOrigin? {
        var origins: [EnvironmentSecretOrigin] = []
        if variable(name) != nil { origins.append(.variable(name: name)) }
        if let path = variable(name + "_FILE") {
            origins.append(.file(SecretFile(path: path), variable: name + "_FILE"))
        }
        if let folder = variable("CREDENTIALS_DIRECTORY") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var info = stat()
            if lstat(path, &info) == 0 { origins.append(.credential(SecretFile(path: path), name: name)) }
        }
        guard origins.count <= 1 else {
            let names = origins.map(\.description)
            throw PortalAuthError(
                .invalidArgument, "\(names.joined(separator: " and ")) are both set",
                remedy: .fixEnvironment(variables: names))
        }
        return origins.first
    }

    /// The secret `origin` supplies now (a file is read and checked).
    public func secret(from origin: EnvironmentSecretOrigin) throws -> String {
        switch origin {
        case .variable(let name):
            guard let secret = variable(name) else {
                throw PortalAuthError(
                    .secretMissing, "\(name) is not set", remedy: .fixEnvironment(variables: [name]))
            }
            return secret
        case .file(let file, _), .credential(let file, _): return try file.read().secret
        }
    }

    /// Refuses a file in `$CREDENTIALS_DIRECTORY` whose name is a misspelling of one of `names`
    /// (another case, `-` or `.` for `_`, a `_FILE` or `.txt` ending), naming the right one; the
    /// folder's other files are left alone.
    public func checkCredentialsDirectory(names: [String]) throws {
        guard let folder = variable("CREDENTIALS_DIRECTORY"), let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if names.contains(entryName) { continue }
            if let expected = Self.misspelled(entryName, of: names) {
                let path = folder.hasSuffix("/") ? folder + entryName : folder + "/" + entryName
                throw SecretFile(path: path).refusal(.misnamed(expected: expected))
            }
        }
    }

    /// The name of `names` that `entry` misspells, if any.
    static func misspelled(_ entry: String, of names: [String]) -> String? {
        var normal = String(entry.uppercased().map { $0 == "-" || $0 == "." || $0 == " " ? "_" : $0 })
        for ending in ["_TXT", "_FILE"] where normal.hasSuffix(ending) && !names.contains(normal) {
            normal.removeLast(ending.count)
        }
        return names.first { $0 == normal && $0 != entry }
    }

    /// A variable's value; nil when unset or empty.
    public func variable(_ name: String) -> String? {
        lookup(name).flatMap { $0.isEmpty ? nil : $0 }
    }
}
