#if canImport(Glibc)
import Glibc
#endif

/// What a ``CredentialStorageBackend``'s items were at one moment, as far as the backend can tell
/// without reading them: two stamps of one backend that are equal say that no item was stored,
/// replaced or deleted between the moments they were taken.
///
/// A process that lives long and keeps what it read (a local credential server, say) takes a
/// stamp *before* it reads, keeps both, and reads again only when the backend's stamp is no longer
/// the kept one (``CredentialStorageBackend/changeStamp``). A backend whose stamp could stay the
/// same across a change must not give one: `nil` means "cannot tell", and the reader reads again.
///
/// A backend makes its stamp from numbers that change with every change of its items (a counter,
/// a file's identity and modification time). Stamps of different backends are not compared.
public struct CredentialStoreChangeStamp: Hashable, Sendable {
    private let parts: [UInt64]
    /// Files held open while the stamp lives, so that no other file can take their identity
    /// (device and inode) meanwhile: a file removed and another created in its place never look the same.
    private let pins: [Pin]

    /// A stamp of these numbers; equal numbers make equal stamps.
    public init(_ parts: [UInt64]) {
        self.parts = parts
        pins = []
    }

    private init(parts: [UInt64], pins: [Pin]) {
        self.parts = parts
        self.pins = pins
    }

    /// The numbers (for a file written beside the store that a reader without this library compares).
    package var numbers: [UInt64] { parts }

    /// Whether the two stamps hold the very same open files (one stamp given again, not a file opened
    /// again), whatever their numbers.
    package func holdsTheSameFiles(as other: Self) -> Bool {
        !pins.isEmpty && pins.count == other.pins.count && zip(pins, other.pins).allSatisfy { $0 === $1 }
    }

    /// Whether the two stamps have the same numbers.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.parts == rhs.parts }

    /// Hashes the numbers.
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }

    /// Whether `stamps`, taken now, say that nothing changed since `recorded` were taken: both are
    /// there, of the same stores, and every stamp is known (not nil) and equal to its recorded one.
    package static func unchanged(
        since recorded: [CredentialStoreChangeStamp?]?, now stamps: [CredentialStoreChangeStamp?]
    ) -> Bool {
        guard let recorded, recorded.count == stamps.count else { return false }
        return zip(recorded, stamps).allSatisfy { recorded, now in
            guard let recorded, let now else { return false }
            return recorded == now
        }
    }

    // MARK: Files

    /// What a file (or folder) is now: its device, inode, size, and the modification and change
    /// times in nanoseconds; `nil` for one that cannot be opened or is not this user's. The file is
    /// held open while the stamp lives. `absent`: the stamp of a path with nothing there (nil: no stamp for a missing file).
    ///
    /// The last stamp of each absolute path is kept (with its file held open, so that no other file
    /// takes its identity): when the path still names a file of that identity, that stamp is given
    /// again for one `stat`, not an `open`, an `fstat` and a `close` (a local server stamps the
    /// store before every request).
    package static func file(
        at path: String, relativeTo folder: Int32 = AT_FDCWD, absent: [UInt64]? = nil
    ) -> CredentialStoreChangeStamp? {
        let keeps = folder == AT_FDCWD && path.hasPrefix("/")
        if keeps, let kept = lastByPath.withLock({ $0[path] }) {
            var info = stat()
            if stat(path, &info) == 0, info.st_uid == geteuid(), identity(info) == kept.parts { return kept }
        }
        guard let stamp = opened(at: path, relativeTo: folder, absent: absent) else { return nil }
        if keeps, !stamp.pins.isEmpty {
            lastByPath.withLock { last in
                if last[path] == nil, last.count >= keptPaths { last.removeAll() }
                last[path] = stamp
            }
        }
        return stamp
    }

    /// How many paths' last stamps ``file(at:relativeTo:absent:)`` keeps.
    static let keptPaths = 16

    /// The last stamp of each absolute path, its file held open.
    private static let lastByPath = Locked<[String: CredentialStoreChangeStamp]>([:])

    /// The stamp of the file at `path`, read through an open descriptor that the stamp keeps.
    private static func opened(
        at path: String, relativeTo folder: Int32, absent: [UInt64]?
    ) -> CredentialStoreChangeStamp? {
        let fd = openat(folder, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            guard errno == ENOENT || errno == ENOTDIR, let absent else { return nil }
            return CredentialStoreChangeStamp(absent)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid() else {
            close(fd)
            return nil
        }
        return CredentialStoreChangeStamp(parts: identity(info), pins: [Pin(fd)])
    }

    /// The stamps' numbers and files, one after the other: a stamp of several files.
    package static func combining(_ stamps: [CredentialStoreChangeStamp]) -> CredentialStoreChangeStamp {
        CredentialStoreChangeStamp(
            parts: stamps.flatMap { [UInt64(bitPattern: Int64($0.parts.count))] + $0.parts },
            pins: stamps.flatMap(\.pins))
    }

    private static func identity(_ info: stat) -> [UInt64] {
        [
            UInt64(info.st_dev), UInt64(info.st_ino), UInt64(bitPattern: Int64(info.st_size)),
            UInt64(bitPattern: Int64(info.st_mtim.tv_sec)), UInt64(bitPattern: Int64(info.st_mtim.tv_nsec)),
            UInt64(bitPattern: Int64(info.st_ctim.tv_sec)), UInt64(bitPattern: Int64(info.st_ctim.tv_nsec)),
        ]
    }

    /// An open descriptor, closed when the last stamp holding it goes.
    private final class Pin: Sendable {
        private let descriptor: Int32

        init(_ descriptor: Int32) { self.descriptor = descriptor }

        deinit { close(descriptor) }
    }
}
