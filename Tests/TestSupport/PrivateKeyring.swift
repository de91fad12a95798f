import Foundation

/// A D-Bus session bus of its own with an unlocked gnome-keyring, for tests whose assertions
/// depend on what else is in the keyring ("the only signed-in portal", "logout --all").
public final class PrivateKeyring: Sendable {
    /// The bus address (`DBUS_SESSION_BUS_ADDRESS`).
    public let address: String
    /// Its private runtime folder (`XDG_RUNTIME_DIR`), removed when it stops.
    public let directory: String
    private let daemon: ChildProcess

    private init(address: String, directory: String, daemon: ChildProcess) {
        self.address = address
        self.directory = directory
        self.daemon = daemon
    }

    /// The variables that point a child process at this keyring.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address, "XDG_RUNTIME_DIR": directory] }

    /// Starts the bus and unlocks a keyring on it. Prefer ``withPrivateKeyring(_:)``.
    public static func start() async throws -> PrivateKeyring {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pa-kr-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let daemon = try ChildProcess("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1"])
        guard let address = await daemon.nextLine(timeout: 120), !address.isEmpty else {
            _ = await daemon.stop()
            throw SubprocessError("dbus-daemon did not print its address")
        }
        let keyring = PrivateKeyring(address: address, directory: directory, daemon: daemon)
        let unlock = try await Subprocess.run(
            "/usr/bin/gnome-keyring-daemon", ["--unlock", "--components=secrets"], stdin: "private-keyring",
            environment: Subprocess.environment(
                keyring.environment.merging(["XDG_DATA_HOME": directory + "/data"]) { $1 }))
        guard unlock.status == 0 else {
            await keyring.stop()
            throw SubprocessError("gnome-keyring-daemon --unlock failed: \(unlock.stderr)")
        }
        return keyring
    }

    /// Stops the bus and the keyring daemon (which daemonized, so it is no child of ours: it is
    /// found by its runtime folder), waits until the daemon is gone, and removes the folder (the
    /// daemon removes its sockets there as it leaves, which made an earlier removal fail halfway).
    public func stop() async {
        _ = await daemon.stop()
        let keyringDaemons = Self.processes(named: "gnome-keyring-daemon", withVariable: "XDG_RUNTIME_DIR=\(directory)")
        for pid in keyringDaemons { kill(pid, SIGTERM) }
        await Self.waitUntilGone(keyringDaemons)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The processes whose command is `name` and whose environment holds `variable`.
    static func processes(named name: String, withVariable variable: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                command.trimmingCharacters(in: .whitespacesAndNewlines) == String(name.prefix(15)),
                let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { return false }
            return environment.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == variable }
        }
    }

    /// Waits (up to 10 s, then SIGKILL) until none of `pids` is running; they are not our
    /// children, so this polls `kill(pid, 0)` on a thread of its own.
    static func waitUntilGone(_ pids: [Int32]) async {
        guard !pids.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for _ in 0..<1000 where pids.contains(where: { kill($0, 0) == 0 && !isZombie($0) }) {
                    usleep(10_000)
                }
                for pid in pids where kill(pid, 0) == 0 && !isZombie(pid) { kill(pid, SIGKILL) }
                continuation.resume()
            }
        }
    }

    private static func isZombie(_ pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }
}

/// Starts a ``PrivateKeyring``, runs `body`, and stops the keyring (bus and daemon) and removes
/// its folder, awaited, whether `body` returns or throws.
@discardableResult
public func withPrivateKeyring<T>(_ body: (PrivateKeyring) async throws -> T) async throws -> T {
    try await withResource(try await PrivateKeyring.start(), release: { await $0.stop() }, body)
}
