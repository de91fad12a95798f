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
        guard let address = await daemon.nextLine(timeout: 30), !address.isEmpty else {
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

    /// Stops the bus (the keyring daemon leaves with it).
    public func stop() async {
        _ = await daemon.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Starts a ``PrivateKeyring``, runs `body`, and stops the keyring (bus and daemon) and removes
/// its folder, awaited, whether `body` returns or throws.
@discardableResult
public func withPrivateKeyring<T>(_ body: (PrivateKeyring) async throws -> T) async throws -> T {
    try await withResource(try await PrivateKeyring.start(), release: { await $0.stop() }, body)
}
