#if canImport(Glibc)
import Glibc
#endif

/// The folder of portal-auth's lock files, where the keyring's item index and answer book are
/// kept, found as the library finds it (`CrossProcessLock.directory`): `$XDG_RUNTIME_DIR/portal-auth/locks`
/// when the runtime folder is this user's alone, else the cache folder's. A folder found otherwise
/// holds no answer for this keyring: the full program answers.
enum LockFolder {
    static func path() -> String? {
        if let runtime = privateRuntimeFolder() { return runtime + "/portal-auth/locks" }
        guard let cache = cacheFolder() else { return nil }
        return cache + "/portal-auth/locks"
    }

    private static func privateRuntimeFolder() -> String? {
        guard let runtime = TokenRequest.variable("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") else { return nil }
        var info = stat()
        guard stat(runtime, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0, access(runtime, W_OK) == 0
        else { return nil }
        return runtime
    }

    /// `$XDG_CACHE_HOME` when absolute, else `$HOME/.cache` (`$HOME` absolute; not `/`); nil
    /// otherwise (the library then asks the user database: the full program's case).
    private static func cacheFolder() -> String? {
        if let cache = TokenRequest.variable("XDG_CACHE_HOME"), cache.hasPrefix("/") { return cache }
        guard let home = TokenRequest.variable("HOME"), home.hasPrefix("/") else { return nil }
        return (home == "/" ? "" : home) + "/.cache"
    }

    /// The name of a lock key's files without their extension: FNV-1a of the key, in hexadecimal
    /// (`CrossProcessLock.fileStem(for:)`).
    static func fileStem(for key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
