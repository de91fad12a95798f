import PortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// A folder only this user can enter (0700), made fresh under `$XDG_RUNTIME_DIR` (when it is
/// this user's and private) or the temporary folder, for files with secrets (mode 0600, written
/// atomically). ``remove()`` deletes it with everything in it.
///
/// The folder holds a lock file, `lock`, that the process which made it keeps locked (flock) for
/// as long as it lives; the lock file is locked before it gets its name, so a `lock` that is not
/// locked is a dead process's. A folder that outlived its process (killed with SIGKILL, or the
/// machine went down) is removed by the next ``removeStale(in:)``.
struct PrivateFolder: Sendable {
    /// The start of every such folder's name.
    static let namePrefix = "portal-auth-exec."
    /// The lock file's name in the folder.
    static let lockFileName = "lock"

    /// The folder's path.
    let path: String
    /// The locked lock file (closed by ``remove()``).
    let lock: Int32

    /// Makes a new private folder, its lock file locked by this process.
    static func create() throws -> PrivateFolder {
        let base = base()
        var template = Array((base + "/" + namePrefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            let reason = String(cString: strerror(errno))
            throw PortalAuthError(
                .invalidArgument,
                "cannot make a private folder in \(base) (\(reason)): check that it exists and is writable, or "
                    + "set TMPDIR"
            )
        }
        let path = String(cString: made)
        var lockTemplate = Array((path + "/.lock.XXXXXX").utf8CString)
        // Children get no descriptor but their three (pa_spawn), close-on-exec all the same.
        let fd = mkstemp(&lockTemplate)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let temporary = lockTemplate.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0, rename(temporary, path + "/" + lockFileName) == 0 else {
            let code = errno
            if fd >= 0 { close(fd) }
            unlink(temporary)
            rmdir(path)
            throw PortalAuthError(
                .storeFailure,
                "cannot make the lock file of the private folder \(path) (\(String(cString: strerror(code)))): check "
                    + "the disk and its space"
            )
        }
        return PrivateFolder(path: path, lock: fd)
    }

    /// Removes the folders this user's portal-auth processes made in `base` and left behind: those
    /// whose lock file no process holds. A folder without a lock file (being made, or made by an
    /// older portal-auth) is left alone.
    static func removeStale(in base: String = base()) {
        guard let directory = opendir(base) else { return }
        defer { closedir(directory) }
        let baseFD = dirfd(directory)
        while let entry = readdir(directory) {
            let name = entryName(entry)
            guard name.hasPrefix(namePrefix) else { continue }
            let folder = openat(baseFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { continue }
            defer { close(folder) }
            var info = stat()
            guard fstat(folder, &info) == 0, info.st_uid == geteuid() else { continue }
            let lock = openat(folder, lockFileName, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard lock >= 0 else { continue }
            defer { close(lock) }
            // Held: its process is running. Taken: it is gone, and no other exec removes it meanwhile.
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { continue }
            removeEntries(of: folder, keeping: nil)
            unlinkat(baseFD, name, AT_REMOVEDIR)
        }
    }

    /// `$XDG_RUNTIME_DIR` when it is a folder of this user's that nobody else can enter; else
    /// `$TMPDIR` or /tmp (the folder made there is 0700 all the same).
    static func base() -> String {
        if let runtime = environmentVariable("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            var info = stat()
            if lstat(runtime, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(),
                info.st_mode & 0o077 == 0
            {
                return runtime
            }
        }
        if let temporary = environmentVariable("TMPDIR"), !temporary.isEmpty { return temporary }
        return "/tmp"
    }

    /// The path of `name` in the folder.
    func path(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` atomically: a new 0600 file in the folder, renamed over the old one,
    /// so a reader sees the old content or the new, never a part.
    func write(_ text: String, to name: String) throws {
        var template = Array((path + "/." + name + ".XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw failure("create a file in", errno) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var content = text
        writeAll(fd, &content)
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path(name)) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("write a file in", code)
        }
    }

    /// Removes the folder and every file in it, the lock file last (until then, another exec
    /// sees the folder in use), and lets go of the lock.
    func remove() {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if folder >= 0 {
            Self.removeEntries(of: folder, keeping: Self.lockFileName)
            unlinkat(folder, Self.lockFileName, 0)
            close(folder)
        }
        rmdir(path)
        close(lock)
    }

    /// Removes every file in the folder open as `folder` but `keeping`.
    private static func removeEntries(of folder: Int32, keeping: String?) {
        let copy = dup(folder)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return
        }
        while let entry = readdir(directory) {
            let name = entryName(entry)
            if name != "." && name != ".." && name != keeping { unlinkat(folder, name, 0) }
        }
        closedir(directory)
    }

    private static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private func failure(_ what: String, _ code: Int32) -> PortalAuthError {
        PortalAuthError(
            .storeFailure, "cannot \(what) \(path) (\(String(cString: strerror(code)))): check the disk and its space")
    }
}
