#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Keeps credentials in one JSON file, opt-in only (never a fallback for the keyring).
///
/// The file is mode 0600 in a 0700 folder. Every change takes an exclusive lock on
/// `<path>.lock`, reads, changes, writes a temporary file in the same folder, flushes it to disk
/// and renames it over the file, so readers never see a partial file and several processes can
/// write at once. A file that group or others may read, and a folder that is not this user's or
/// that group or others may write to, are refused, not silently fixed.
public final class FileCredentialBackend: CredentialStorageBackend {
    /// `file`.
    public let name = "file"
    /// The file's path.
    public let path: String
    /// File I/O blocks.
    public let isBlocking = true
    /// The file outlives the process and other processes read it.
    public let isPersistent = true

    /// The file's path.
    public var location: String { path }

    /// Creates the backend for a path; by default `$PORTAL_AUTH_FILE_STORE`, else
    /// `$XDG_DATA_HOME/portal-auth/credentials.json`, else `~/.local/share/portal-auth/credentials.json`.
    public init(path: String? = nil) {
        let env = ProcessInfo.processInfo.environment
        if let path {
            self.path = path
        } else if let custom = env["PORTAL_AUTH_FILE_STORE"], !custom.isEmpty {
            self.path = custom
        } else if let data = env["XDG_DATA_HOME"], !data.isEmpty {
            self.path = data + "/portal-auth/credentials.json"
        } else {
            self.path = (env["HOME"] ?? "/root") + "/.local/share/portal-auth/credentials.json"
        }
    }

    /// The file's JSON: a version and the items, each its attributes and its secret.
    package struct FileContents: Codable, Equatable {
        /// The format version (1).
        package var version = 1
        /// Every item.
        package var items: [Item] = []
        /// One item.
        package struct Item: Codable, Equatable {
            /// Its non-secret attributes.
            package var attributes: CredentialAttributes
            /// Its secret (a credential's JSON).
            package var secret: String
        }
    }

    /// Reads the file's bytes (`path` names it in the error): no bytes are an empty store.
    package static func decodeContents(_ bytes: [UInt8], path: String) throws -> FileContents {
        if bytes.isEmpty { return FileContents() }
        do {
            return try JSONDecoder().decode(FileContents.self, from: Data(bytes))
        } catch {
            throw PortalAuthError(
                .storeFailure,
                "the credentials file \(path) is not valid JSON (damaged, or not written by portal-auth)",
                remedy: .moveAside(path: path))
        }
    }

    /// The file's bytes for `contents` (sorted keys, so that a rewrite changes only what changed).
    package static func encodeContents(_ contents: FileContents) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(contents))
    }

    private var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The identity of the file and of its folder (device, inode, size, modification and change
    /// times), each held open while the stamp lives: every change portal-auth makes renames a new
    /// file over the file, and a file or folder put in place of another is a different one. A
    /// missing file (or folder) has a stamp of its own, an empty store's. Nil when either cannot be
    /// opened or is not this user's.
    public var changeStamp: CredentialStoreChangeStamp? {
        guard let folder = CredentialStoreChangeStamp.file(at: directory, absent: [0]),
            let file = CredentialStoreChangeStamp.file(at: path, absent: [1])
        else { return nil }
        return CredentialStoreChangeStamp.combining([folder, file])
    }

    /// Checks that the folder can be created and the file, if any, is private and readable.
    public func checkAvailable() throws {
        try makeDirectory()
        _ = try withLock(exclusive: false) { try read() }
    }

    // MARK: CredentialStorageBackend

    /// The secret of the first matching item.
    public func lookup(_ query: CredentialQuery) throws -> String? {
        try withLock(exclusive: false) { try read().items.first { query.matches($0.attributes) }?.secret }
    }

    /// Every matching item.
    public func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try withLock(exclusive: false) {
            try read().items.filter { query.matches($0.attributes) }.map {
                StoredCredentialItem(attributes: $0.attributes, secret: withSecrets ? $0.secret : nil)
            }
        }
    }

    /// Stores an item, replacing any with the same store, server and kind.
    public func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try store(attributes, secret: secret, replacing: CredentialQuery(replacing: attributes), access: access)
    }

    /// Stores an item and removes every other item matching `replacing`, in one locked rewrite
    /// of the file (readers see the old file or the new one, nothing between).
    public func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try makeDirectory()
        try withLock(exclusive: true) {
            var contents = try read()
            contents.items.removeAll { replacing.matches($0.attributes) }
            contents.items.append(.init(attributes: attributes, secret: secret))
            try write(contents)
        }
    }

    /// Deletes every matching item.
    @discardableResult
    public func delete(_ query: CredentialQuery, access _: CredentialWriteAccess) throws -> Int {
        guard access(path, F_OK) == 0 else { return 0 }
        return try withLock(exclusive: true) {
            var contents = try read()
            let before = contents.items.count
            contents.items.removeAll { query.matches($0.attributes) }
            if contents.items.count != before { try write(contents) }
            return before - contents.items.count
        }
    }

    // MARK: Files

    private func posixError(_ what: String, _ target: String) -> PortalAuthError {
        let code = errno
        let text = String(cString: strerror(code))
        return PortalAuthError(
            .storeFailure, "cannot \(what) \(target) (\(text))", remedy: .checkCredentialStore,
            cause: .posix(code: code, message: text))
    }

    private func makeDirectory() throws {
        var info = stat()
        if stat(directory, &info) == 0 { return }
        // Create missing parents, the last one private.
        var partial = ""
        for component in directory.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0 && errno != EEXIST { throw posixError("create the folder", partial) }
        }
    }

    /// Refuses a folder that another user could change (swap the file, or plant a link where
    /// the next write goes): it must belong to this user and not be writable by group or others.
    private func checkDirectory() throws {
        var info = stat()
        guard stat(directory, &info) == 0 else { throw posixError("examine the folder", directory) }
        if info.st_uid != geteuid() {
            throw PortalAuthError(
                .storeFailure,
                "the folder \(directory) of the credentials file belongs to user id \(info.st_uid), not to this user "
                    + "(\(geteuid())), who could replace the file",
                remedy: .useOwnFolder(path: directory))
        }
        if info.st_mode & 0o022 != 0 {
            let mode = permissionBits(info.st_mode)
            throw PortalAuthError(
                .storeFailure,
                "the folder \(directory) of the credentials file has mode \(mode), so other users could replace "
                    + "the file",
                remedy: .makePrivate(path: directory))
        }
    }

    private func withLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
        if !exclusive, access(directory, F_OK) != 0 { return try body() }
        try checkDirectory()
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw posixError("open the lock file", path + ".lock") }
        defer { close(fd) }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw posixError("lock", path + ".lock") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    private func read() throws -> FileContents {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return FileContents() }
            throw posixError("read", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw posixError("read", path) }
        if info.st_mode & 0o077 != 0 {
            let mode = permissionBits(info.st_mode)
            throw PortalAuthError(
                .storeFailure,
                "the credentials file \(path) has mode \(mode), so others may read it",
                remedy: .makePrivate(path: path))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; throw posixError("read", path) }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return try Self.decodeContents(bytes, path: path)
    }

    private func write(_ contents: FileContents) throws {
        let data = try Self.encodeContents(contents)
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw posixError("write", temp) }
        var written = 0
        while written < data.count {
            let n = data[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; close(fd); unlink(temp); throw posixError("write", temp) }
            written += n
        }
        guard fsync(fd) == 0 else { close(fd); unlink(temp); throw posixError("write", temp) }
        close(fd)
        guard rename(temp, path) == 0 else { unlink(temp); throw posixError("replace", path) }
        let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 { fsync(dirfd); close(dirfd) }
    }
}
