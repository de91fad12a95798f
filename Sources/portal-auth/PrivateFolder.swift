import PortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// A folder only this user can enter (0700), made fresh under `$XDG_RUNTIME_DIR` (when it is
/// this user's and private) or the temporary folder, for files with secrets (mode 0600, written
/// atomically). ``remove()`` deletes it with everything in it.
struct PrivateFolder: Sendable {
    /// The folder's path.
    let path: String

    /// Makes a new private folder.
    static func create() throws -> PrivateFolder {
        var template = Array((base() + "/portal-auth-exec.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            let reason = String(cString: strerror(errno))
            throw PortalAuthError(
                .invalidArgument,
                "cannot make a private folder in \(base()) (\(reason)): check that it exists and is writable, or set TMPDIR"
            )
        }
        return PrivateFolder(path: String(cString: made))
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

    /// Removes the folder and every file in it.
    func remove() {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { unlink(self.path(name)) }
            }
            closedir(directory)
        }
        rmdir(path)
    }

    private func failure(_ what: String, _ code: Int32) -> PortalAuthError {
        PortalAuthError(
            .storeFailure, "cannot \(what) \(path) (\(String(cString: strerror(code)))): check the disk and its space")
    }
}
