#if canImport(Glibc)
import Glibc
#endif

/// A file that holds one secret (a password, a client secret, an API key), as Kubernetes, systemd
/// (`LoadCredential=`), Vault Agent and the `*_FILE` convention hand secrets over.
///
/// A secret file is read only when it follows these rules, as ssh reads a private key: its path
/// names a regular file, or a link to one inside the link's own folder (a Kubernetes key's link
/// through `..data` is); the file belongs to this user (or to root); group and other users have no
/// access to it; it holds at most ``maximumSize`` bytes of UTF-8 text, not nothing. Its contents
/// lose one trailing newline and nothing else. Anything else throws a ``PortalAuthError`` whose
/// remedy is ``PortalAuthError/Remedy/fixSecretFile(path:problem:)``, naming the file and the rule.
///
/// A reading is never of a half-replaced file: the file the path names is opened once, read, and
/// checked to be unchanged and still the one the path names; otherwise it is read again.
public struct SecretFile: Hashable, Sendable, CustomStringConvertible {
    /// The largest secret file read, in bytes.
    public static let maximumSize = 65_536

    /// The path, as given.
    public let path: String

    /// A secret file at `path`.
    public init(path: String) { self.path = path }

    /// The path.
    public var description: String { path }

    /// A secret and the stamp of the file it was read from.
    public struct Reading: Sendable {
        /// The secret: the file's contents without one trailing newline.
        public let secret: String
        /// The file as it was when read.
        public let stamp: SecretFileStamp
    }

    /// Reads the secret, checking every rule.
    public func read() throws -> Reading {
        for _ in 0..<8 {
            if let reading = try readOnce() { return reading }
        }
        throw refusal(.keptChanging)
    }

    /// The error refusing this file for `problem`.
    public func refusal(_ problem: SecretFileProblem) -> PortalAuthError {
        let code: PortalAuthError.Code =
            switch problem {
            case .missing, .empty: .secretMissing
            default: .invalidConfiguration
            }
        return PortalAuthError(
            code, "the secret file \(path) \(problem.whatIsWrong)", remedy: .fixSecretFile(path: path, problem: problem)
        )
    }

    /// One attempt: the reading, or nil when the file changed under it (read again).
    private func readOnce() throws -> Reading? {
        let target = try resolvedTarget()
        let descriptor = open(target, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            // A link swapped between resolving and opening (the kubelet removes the old folder).
            if target != path, code == ENOENT || code == ELOOP { return nil }
            if code == ENOENT { throw refusal(.missing) }
            throw refusal(.unreadable(reason: String(cString: strerror(code))))
        }
        defer { close(descriptor) }
        var before = stat()
        guard fstat(descriptor, &before) == 0 else {
            throw refusal(.unreadable(reason: String(cString: strerror(errno))))
        }
        try check(before)
        let bytes = try readAll(descriptor)
        var after = stat()
        guard fstat(descriptor, &after) == 0 else {
            throw refusal(.unreadable(reason: String(cString: strerror(errno))))
        }
        let stamp = SecretFileStamp(after)
        // Written while read, or no longer the file the path names: read what the path names now.
        guard SecretFileStamp(before) == stamp, SecretFileStamp.of(path) == stamp else { return nil }
        return Reading(secret: try secret(from: bytes), stamp: stamp)
    }

    /// The path of the file to open: the path itself, or where its links lead when that is in the
    /// link's folder.
    private func resolvedTarget() throws -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw refusal(.missing) }
            throw refusal(.unreadable(reason: String(cString: strerror(code))))
        }
        guard info.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = Self.realPath(path) else { throw refusal(.missing) }
        let parent = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        guard let folder = Self.realPath(parent.isEmpty ? "/" : parent) else { throw refusal(.missing) }
        guard resolved.hasPrefix(folder == "/" ? "/" : folder + "/") else {
            throw refusal(.linkOutOfFolder(target: resolved))
        }
        return resolved
    }

    /// Refuses what is not a private regular file of this user's (or root's).
    private func check(_ info: stat) throws {
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else { throw refusal(.notRegularFile(kind: Self.kind(of: type))) }
        guard info.st_uid == geteuid() || info.st_uid == 0 else { throw refusal(.notOwned(owner: info.st_uid)) }
        guard info.st_mode & 0o077 == 0 else { throw refusal(.loosePermissions(mode: permissionBits(info.st_mode))) }
        guard info.st_size <= Self.maximumSize else { throw refusal(.tooLarge) }
    }

    /// Every byte of the open file, up to one more than ``maximumSize``.
    private func readAll(_ descriptor: Int32) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= Self.maximumSize {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw refusal(.unreadable(reason: String(cString: strerror(errno))))
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        guard bytes.count <= Self.maximumSize else { throw refusal(.tooLarge) }
        return bytes
    }

    /// The secret in `bytes`: UTF-8 text without one trailing newline, not empty.
    private func secret(from bytes: [UInt8]) throws -> String {
        var bytes = bytes[...]
        if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { throw refusal(.empty) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw refusal(.notText) }
        return text
    }

    /// The canonical path (`realpath`): links followed; nil when it leads nowhere.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A file type in words.
    private static func kind(of type: mode_t) -> String {
        switch type {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a file"
        }
    }
}
