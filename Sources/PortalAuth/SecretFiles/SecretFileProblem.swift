/// Why a secret file (``SecretFile``) was refused: each is one rule of what a file that holds a
/// secret must be, and the remedy ``PortalAuthError/Remedy/fixSecretFile(path:problem:)`` carries it.
public enum SecretFileProblem: Hashable, Sendable {
    /// There is no file at the path (or it is a link to nothing).
    case missing
    /// The file holds nothing (or only a newline).
    case empty
    /// The path names something other than a regular file (`kind`: a folder, a FIFO, a device…).
    case notRegularFile(kind: String)
    /// The path is a link to `target`, which is outside the link's own folder.
    case linkOutOfFolder(target: String)
    /// The file belongs to the user id `owner`, neither this user nor root.
    case notOwned(owner: UInt32)
    /// Group or other users may read or change the file (`mode`, for example `0644`).
    case loosePermissions(mode: String)
    /// The file is larger than a secret is (``SecretFile/maximumSize``).
    case tooLarge
    /// The file is not UTF-8 text.
    case notText
    /// The file cannot be read (`reason`: the system's word, for example `Permission denied`).
    case unreadable(reason: String)
    /// The file changed every time it was read.
    case keptChanging
    /// A file in a folder of credentials whose name is a misspelling of `expected`, the name read there.
    case misnamed(expected: String)

    /// What is wrong, after the file's path: for example `is empty`.
    var whatIsWrong: String {
        switch self {
        case .missing: return "does not exist"
        case .empty: return "is empty"
        case .notRegularFile(let kind): return "is \(kind), not a regular file"
        case .linkOutOfFolder(let target): return "is a link to \(target), outside its folder"
        case .notOwned(let owner): return "belongs to user id \(owner), not to this user (\(geteuidValue))"
        case .loosePermissions(let mode): return "has mode \(mode): other users may read or change it"
        case .tooLarge: return "is larger than \(SecretFile.maximumSize / 1024) KiB, more than a secret"
        case .notText: return "is not UTF-8 text"
        case .unreadable(let reason): return "cannot be read (\(reason))"
        case .keptChanging: return "kept changing while it was read"
        case .misnamed(let expected): return "is not a name read there (the secret's name is \(expected))"
        }
    }

    /// What to do, in the library's words, about the file at `path`.
    func remedy(path: String) -> String {
        switch self {
        case .missing: return "write the secret to \(path), or name the file that holds it"
        case .empty, .tooLarge, .notText: return "write the secret, and only it, to \(path)"
        case .notRegularFile: return "name a regular file that holds the secret"
        case .linkOutOfFolder(let target): return "name \(target) itself, or put the secret in the link's folder"
        case .notOwned: return "make \(path) this user's"
        case .loosePermissions: return "take group's and other users' access to \(path) away"
        case .unreadable: return "check that this user may read \(path)"
        case .keptChanging: return "try again once \(path) is written"
        case .misnamed(let expected): return "rename \(path) to \(expected)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// This process's effective user id.
private var geteuidValue: UInt32 { geteuid() }
