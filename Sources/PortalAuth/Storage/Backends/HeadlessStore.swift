#if canImport(Glibc)
import Glibc
#endif

/// The store used when the user chose none and there is no D-Bus session bus for a keyring (a
/// container, a CI runner, a systemd service): a file store under the user's state folder
/// (`$XDG_STATE_HOME/portal-auth/credentials.json`, else `~/.local/state/portal-auth/…`; the file
/// 0600 in a 0700 folder, as ``FileCredentialBackend`` keeps it), or memory when that folder
/// cannot be made. A store the user chose is never replaced by it.
public struct HeadlessStore: Sendable {
    /// The file store's path; nil when memory is used.
    public let path: String?
    /// Why this store, in words: for example `no D-Bus session bus, and /root/.local/state is writable`.
    public let reason: String

    /// Whether a D-Bus session bus is reachable, as the keyring looks for one
    /// (`DBUS_SESSION_BUS_ADDRESS`, or `$XDG_RUNTIME_DIR/bus`): a `getenv` and at most a `stat`.
    public static var sessionBusReachable: Bool { (try? KeyringCredentialBackend.checkBus()) != nil }

    /// The headless store for this user, its folder made (private) if it can be. `lacking` says
    /// what is missing for a keyring: no session bus (``DefaultStoreBackend``: no Secret Service on it).
    public static func choose(lacking: String = "no D-Bus session bus") -> HeadlessStore {
        guard let folder = stateFolder() else {
            return HeadlessStore(path: nil, reason: "\(lacking), and no HOME or XDG_STATE_HOME to write in")
        }
        let directory = folder + "/portal-auth"
        guard makePrivateFolder(directory) else {
            return HeadlessStore(path: nil, reason: "\(lacking), and \(directory) cannot be made")
        }
        return HeadlessStore(path: directory + "/credentials.json", reason: lacking)
    }

    /// The backend: the file store, or memory.
    public func makeBackend() -> any CredentialStorageBackend {
        path.map { FileCredentialBackend(path: $0) } ?? MemoryCredentialBackend()
    }

    /// Whether this is the first time the file store is used here (a marker beside the file is
    /// made now): what says it once, not on every command. Always true for memory.
    public func isFirstUse() -> Bool {
        guard let path else { return true }
        let descriptor = open(path + ".announced", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// `$XDG_STATE_HOME`, else `$HOME/.local/state`; nil with neither.
    private static func stateFolder() -> String? {
        if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") { return state }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else { return nil }
        return home + "/.local/state"
    }

    /// Makes `directory` and its missing parents (the last one 0700); whether it is now a folder
    /// this user can write in.
    private static func makePrivateFolder(_ directory: String) -> Bool {
        var partial = ""
        for component in directory.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, partial == directory ? 0o700 : 0o755) != 0 && errno != EEXIST { return false }
        }
        return access(directory, W_OK) == 0
    }
}
