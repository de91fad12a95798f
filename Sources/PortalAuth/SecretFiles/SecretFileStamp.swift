#if canImport(Glibc)
import Glibc
#endif

/// What a secret file is now, as `stat` sees the file its path names (through any links): which
/// file (device and inode), its size, and when its contents and its inode last changed.
///
/// Two equal stamps mean the file has not been replaced, renamed over, or written since; a
/// Kubernetes `..data` swap, a rename by Vault Agent and an edit in place each change it.
public struct SecretFileStamp: Hashable, Sendable {
    /// The device and inode of the file the path resolves to.
    public let device: UInt64
    /// The inode.
    public let inode: UInt64
    /// The size in bytes.
    public let size: Int64
    /// The last change of the contents (`st_mtim`), in nanoseconds since the epoch.
    public let modified: Int64
    /// The last change of the inode (`st_ctim`), in nanoseconds since the epoch.
    public let changed: Int64

    /// The stamp of a `stat` result.
    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// The stamp of the file `path` names now (links followed); nil when there is none.
    public static func of(_ path: String) -> SecretFileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return SecretFileStamp(info)
    }

    /// Whether `other` is the same file (device and inode), whatever became of its contents.
    func isSameFile(as other: SecretFileStamp) -> Bool { device == other.device && inode == other.inode }
}
