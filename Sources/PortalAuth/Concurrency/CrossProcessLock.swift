#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock shared by every portal-auth process of this user (flock on a file in the
/// lock folder, ``directory``), so that only one process renews a credential, or changes a stored
/// item, at a time.
///
/// The lock folder is `$XDG_RUNTIME_DIR/portal-auth/locks` when `XDG_RUNTIME_DIR` is a private
/// folder of this user's, else `$XDG_CACHE_HOME/portal-auth/locks` or `~/.cache/portal-auth/locks`:
/// never a predictable name in a folder every user may write to (such as /tmp), where another
/// local user could create it first and so keep every portal-auth command of this user from
/// running.
///
/// The folder and its parent are created 0700 (and missing folders above them, also 0700) and
/// checked before every use (a folder, not a symbolic link, owned by this user, no group or other
/// permissions): another local user who prepared it could otherwise make the lock files land where
/// they chose, or hold a lock forever. Lock files are opened relative to the checked folder with
/// `O_NOFOLLOW`.
enum CrossProcessLock {
    /// The lock folder (see the type's description).
    static var directory: String {
        if let runtime = privateRuntimeFolder() { return runtime + "/portal-auth/locks" }
        return cacheFolder() + "/portal-auth/locks"
    }

    /// `$XDG_RUNTIME_DIR` when it is an absolute path to a folder of this user's that no one else
    /// may enter and this process may write to; else nil.
    static func privateRuntimeFolder() -> String? {
        // getenv, not ProcessInfo's environment: a token lookup's startup time counts.
        guard let value = getenv("XDG_RUNTIME_DIR"), isAbsolute(value) else { return nil }
        let runtime = String(cString: value)
        var info = stat()
        guard stat(runtime, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0, access(runtime, W_OK) == 0
        else { return nil }
        return runtime
    }

    /// This user's cache folder: `$XDG_CACHE_HOME` when it is an absolute path, else `~/.cache`
    /// (`$HOME`, or the home folder of the user database when HOME is not set).
    static func cacheFolder() -> String {
        if let value = getenv("XDG_CACHE_HOME"), isAbsolute(value) { return String(cString: value) }
        return homeFolder() + "/.cache"
    }

    /// `$HOME` when it is an absolute path, else this user's home folder in the user database
    /// ("" when there is none: the lock folder is then `/.cache/...`, which only root may create).
    static func homeFolder() -> String {
        if let value = getenv("HOME"), isAbsolute(value) {
            let home = String(cString: value)
            return home == "/" ? "" : home
        }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, let found = result,
            let directory = found.pointee.pw_dir, isAbsolute(directory)
        else { return "" }
        let home = String(cString: directory)
        return home == "/" ? "" : home
    }

    /// A file name for a lock key: its ``fileStem(for:)`` and `.lock`.
    static func fileName(for key: String) -> String { fileStem(for: key) + ".lock" }

    /// The name of a lock key's files without their extension (FNV-1a of the key; the key itself
    /// may be a URL).
    static func fileStem(for key: String) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return String(hash, radix: 16)
    }

    /// Runs `body` while holding the lock for `key`; waits (polling, so no thread blocks) while
    /// the lock changes hands at least every `timeout` seconds (see ``Patience``).
    ///
    /// While it waits, `settled` (when given) is asked every 100 ms whether the holder's work
    /// already answers this caller (another process renewed the credential): then its answer is
    /// returned without taking the lock. So a crowd of processes that all need one renewal read the
    /// result side by side, instead of each holding the lock in turn to find there is nothing to do.
    ///
    /// A task that already holds the lock for `key` (the commit of a renewal, under the renewal's
    /// lock) runs `body` at once: the lock is held by the work it is part of.
    static func withLock<T: Sendable>(
        _ key: String, timeout: Double = 60, settled: (() async throws -> T?)? = nil,
        _ body: () async throws -> T
    ) async throws -> T {
        if heldKeys.contains(key) { return try await body() }
        let (fd, path) = try openLockFile(for: key)
        defer { close(fd) }
        var patience = Patience(timeout: timeout)
        var nextCheck = ContinuousClock.now + .milliseconds(100)
        while try !tryLock(fd, shared: false, path: path) {
            guard !patience.runsOut(stamp: stamp(fd)) else { throw heldTooLong(path, timeout: timeout) }
            if let settled, ContinuousClock.now >= nextCheck {
                if let answer = try await settled() { return answer }
                nextCheck = ContinuousClock.now + .milliseconds(100)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        defer { release(fd) }
        return try await $heldKeys.withValue(heldKeys.union([key])) { try await body() }
    }

    /// The keys whose lock the current task (and the tasks it started) holds.
    @TaskLocal static var heldKeys: Set<String> = []

    /// Runs `body` on the calling thread (which it blocks while waiting) holding the lock for
    /// `key`, shared (several readers) or exclusive (one writer); waits while the lock changes
    /// hands at least every `timeout` seconds (see ``Patience``).
    ///
    /// Writers go first: a writer takes a second lock (the key's gate) before waiting for the
    /// readers already in, and a reader passes the gate before it takes its shared lock. Without
    /// the gate, a crowd of processes reading in turn (waiting for another's renewal, say) always
    /// holds the shared lock somewhere, and the writer they wait for never gets in.
    static func withBlockingLock<T>(
        _ key: String, shared: Bool = false, timeout: Double = 60, _ body: () throws -> T
    ) throws -> T {
        try withBlockingLock(key, shared: shared, timeout: timeout, inFolder: { _ in try body() })
    }

    /// The lock folder as ``withBlockingLock(_:shared:timeout:inFolder:)`` hands it to its body.
    struct Folder {
        /// A descriptor of the checked folder (valid while the body runs).
        var descriptor: Int32
        /// Its path, for errors.
        var path: String
    }

    /// ``withBlockingLock(_:shared:timeout:_:)``, handing `body` the checked lock folder, where it
    /// may keep files that the lock guards as it guards the rest.
    static func withBlockingLock<T>(
        _ key: String, shared: Bool = false, timeout: Double = 60, inFolder body: (Folder) throws -> T
    ) throws -> T {
        var patience = Patience(timeout: timeout)
        // Both files in one opening (and check) of the folder.
        let directory = Self.directory
        let folder = try openFolder(directory)
        defer { close(folder) }
        let (gate, gatePath) = try openLockFile(for: key + " writers", folder: folder, directory: directory)
        defer { close(gate) }
        try waitForLock(gate, shared: shared, path: gatePath, patience: &patience)
        var gateHeld = true
        defer { if gateHeld { release(gate) } }
        let (fd, path) = try openLockFile(for: key, folder: folder, directory: directory)
        defer { close(fd) }
        try waitForLock(fd, shared: shared, path: path, patience: &patience)
        defer { release(fd) }
        if shared {
            // In: let the next writer announce itself.
            release(gate)
            gateHeld = false
        }
        return try body(Folder(descriptor: folder, path: directory))
    }

    /// How long a waiter waits: until no process has taken or released the lock for `timeout`
    /// seconds. Every holder touches the lock file when it takes the lock and when it lets go,
    /// so a waiter behind a queue of holders (readers that each wait for a slow keyring, a writer
    /// removing many items) goes on waiting while they finish in turn, however long the queue;
    /// only a holder that keeps the lock `timeout` seconds on its own is reported.
    struct Patience {
        let timeout: Duration
        private var deadline: ContinuousClock.Instant
        private var stamp: Stamp?

        init(timeout: Double, now: ContinuousClock.Instant = .now) {
            self.timeout = .milliseconds(Int(timeout * 1000))
            deadline = now + self.timeout
        }

        /// Whether the wait is over, given the lock file's stamp now: a stamp that changed since
        /// the last call (the lock changed hands) starts the time-out again.
        mutating func runsOut(stamp: Stamp?, now: ContinuousClock.Instant = .now) -> Bool {
            if let stamp, let last = self.stamp, stamp != last { deadline = now + timeout }
            if stamp != nil { self.stamp = stamp }
            return now >= deadline
        }
    }

    /// A lock file's modification time: the last time a holder took or released the lock.
    struct Stamp: Equatable {
        var seconds: Int
        var nanoseconds: Int
    }

    /// The lock file's stamp, or nil when it cannot be read.
    static func stamp(_ fd: Int32) -> Stamp? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return Stamp(seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }

    /// Sets the lock file's times to `seconds` after the epoch (for tests).
    static func setStamp(_ fd: Int32, seconds: Int) -> Bool {
        let times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        return futimens(fd, times) == 0
    }

    /// Lets go of the lock, touching the file first: waiters see the lock changed hands.
    private static func release(_ fd: Int32) {
        futimens(fd, nil)
        flock(fd, LOCK_UN)
    }

    /// Polls for the lock (blocking the thread, backing off to 5 ms) until `patience` runs out.
    private static func waitForLock(_ fd: Int32, shared: Bool, path: String, patience: inout Patience) throws {
        var pause: UInt32 = 200
        while try !tryLock(fd, shared: shared, path: path) {
            guard !patience.runsOut(stamp: stamp(fd)) else {
                throw heldTooLong(path, timeout: Double(patience.timeout.components.seconds))
            }
            usleep(pause)
            pause = min(pause * 2, 5_000)
        }
    }

    /// Takes the lock without waiting: true when taken, false when another holder has it.
    private static func tryLock(_ fd: Int32, shared: Bool, path: String) throws -> Bool {
        if flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 {
            futimens(fd, nil)  // Taken: waiters see the lock changed hands.
            return true
        }
        let code = errno
        guard code == EWOULDBLOCK || code == EINTR else {
            let text = String(cString: strerror(code))
            throw PortalAuthError(
                .storeFailure, "cannot lock \(path): \(text)", cause: .posix(code: code, message: text))
        }
        return false
    }

    private static func heldTooLong(_ path: String, timeout: Double) -> PortalAuthError {
        PortalAuthError(
            .timedOut,
            "another portal-auth process has held the lock \(path) for over \(Int(timeout)) s without letting go",
            remedy: .removeStaleLock(path: path))
    }

    /// Opens (creating it 0600) the lock file for `key` in the checked lock folder.
    static func openLockFile(for key: String, in directory: String = directory) throws -> (Int32, String) {
        let folder = try openFolder(directory)
        defer { close(folder) }
        return try openLockFile(for: key, folder: folder, directory: directory)
    }

    /// Opens (creating it 0600) the lock file for `key` in `folder`, a descriptor of the lock
    /// folder `directory` that ``openFolder(_:)`` checked.
    private static func openLockFile(for key: String, folder: Int32, directory: String) throws -> (Int32, String) {
        let name = fileName(for: key)
        let path = directory + "/" + name
        let fd = openat(folder, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            let text = String(cString: strerror(code))
            throw PortalAuthError(
                .storeFailure,
                "cannot create the lock file \(path): \(text)",
                remedy: .checkPermissions(path: directory), cause: .posix(code: code, message: text))
        }
        return (fd, path)
    }

    /// Creates (0700) and opens the lock folder and its parent, refusing either unless it is a
    /// real folder owned by this user that no one else may enter; returns the folder's descriptor.
    static func openFolder(_ directory: String) throws -> Int32 {
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        let parentFD = try openPrivateFolder(parent, at: AT_FDCWD, name: parent)
        defer { close(parentFD) }
        let name = String(
            directory[(directory.lastIndex(of: "/").map { directory.index(after: $0) } ?? directory.startIndex)...])
        return try openPrivateFolder(directory, at: parentFD, name: name)
    }

    private static func openPrivateFolder(_ path: String, at base: Int32, name: String) throws -> Int32 {
        if mkdirat(base, name, 0o700) != 0, errno == ENOENT, base == AT_FDCWD {
            // A folder above is missing (~/.cache in a new home): make those, 0700, and try again.
            var partial = ""
            for component in path.split(separator: "/").dropLast() {
                partial += "/" + component
                mkdir(partial, 0o700)
            }
        }
        if mkdirat(base, name, 0o700) != 0, errno != EEXIST {
            let code = errno
            let text = String(cString: strerror(code))
            throw PortalAuthError(
                .storeFailure, "cannot create the lock folder \(path): \(text)", remedy: .useOwnFolder(path: path),
                cause: .posix(code: code, message: text))
        }
        let fd = openat(base, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            let code = errno
            if fd >= 0 { close(fd) }
            throw unsafeFolder(
                path,
                code == ELOOP || code == ENOTDIR
                    ? "is not a folder (a symbolic link or a file)" : String(cString: strerror(code)))
        }
        if info.st_uid != geteuid() {
            close(fd)
            throw unsafeFolder(path, "belongs to user id \(info.st_uid), not to this user (\(geteuid()))")
        }
        if info.st_mode & 0o077 != 0 {
            close(fd)
            throw PortalAuthError(
                .storeFailure,
                "the lock folder \(path) has mode \(permissionBits(info.st_mode)) (other users may change it), so it "
                    + "is not used",
                remedy: .makePrivate(path: path))
        }
        return fd
    }

    private static func unsafeFolder(_ path: String, _ problem: String) -> PortalAuthError {
        PortalAuthError(
            .storeFailure,
            "the lock folder \(path) \(problem), so it is not used: another user may have created it to interfere",
            remedy: .useOwnFolder(path: path))
    }
}

/// Whether a C string is an absolute path.
private func isAbsolute(_ path: UnsafePointer<CChar>) -> Bool { path.pointee == 0x2F }

/// The permission bits of a file mode as `ls -l` users and chmod know them: four octal digits,
/// set-user-ID, set-group-ID and sticky first (a sticky folder every user may write to is 1777).
func permissionBits(_ mode: mode_t) -> String {
    let digits = String(mode & 0o7777, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
