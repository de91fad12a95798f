import Foundation
import PortalEmulator
import Synchronization
import Testing

struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The folder with the built executables (next to the test bundle), or PORTAL_AUTH_BIN_DIR.
    static let binDirectory: URL = {
        if let dir = ProcessInfo.processInfo.environment["PORTAL_AUTH_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("portal-auth").path), url.path != "/" {
            url = url.deletingLastPathComponent()
        }
        return url
    }()

    static var portalAuth: String { binDirectory.appendingPathComponent("portal-auth").path }

    /// Runs a program with stdin from a string (or /dev/null), capturing stdout and stderr.
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    removing: [String] = [], timeout: TimeInterval = 60) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in removing { env.removeValue(forKey: key) }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        if stdin != nil { process.standardInput = input } else { process.standardInput = FileHandle.nullDevice }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        // Read both pipes concurrently so neither fills up.
        let collected = Mutex<[Int: Data]>([:])
        let group = DispatchGroup()
        for (index, pipe) in [out, err].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.withLock { $0[index] = data }
                group.leave()
            }
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            Issue.record("\(executable) \(arguments) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        let outData = collected.withLock { $0[0] ?? Data() }, errData = collected.withLock { $0[1] ?? Data() }
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs portal-auth trusting the emulator's CA.
    static func portalAuth(_ arguments: [String], emulator: PortalEmulator?, stdin: String? = nil, environment: [String: String] = [:], removing: [String] = []) throws -> CLIResult {
        var env = environment
        if let emulator, env["PORTAL_AUTH_CA_BUNDLE"] == nil { env["PORTAL_AUTH_CA_BUNDLE"] = emulator.caCertificatePath }
        return try run(portalAuth, arguments, stdin: stdin, environment: env, removing: removing)
    }

    /// `secret-tool search --all application portal-auth server S` output (stdout + stderr).
    static func keyringItems(server: String) throws -> String {
        let r = try run("/usr/bin/secret-tool", ["search", "--all", "application", "portal-auth", "server", server])
        return r.stdout + r.stderr
    }

    /// Runs a shell script on its own D-Bus session bus with its own gnome-keyring.
    /// `unlock` false leaves the keyring without an unlocked default collection.
    static func inPrivateKeyring(_ script: String, unlock: Bool = true, environment: [String: String] = [:]) throws -> CLIResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-keyring-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let start = unlock
            ? "printf %s pw | XDG_DATA_HOME=\"$XDG_RUNTIME_DIR/data\" gnome-keyring-daemon --unlock --components=secrets >/dev/null"
            : "XDG_DATA_HOME=\"$XDG_RUNTIME_DIR/data\" gnome-keyring-daemon --start --components=secrets >/dev/null"
        var env = environment
        env["XDG_RUNTIME_DIR"] = dir
        env["PA"] = portalAuth
        return try run("/usr/bin/dbus-run-session", ["--", "/bin/sh", "-c", start + "\n" + script], environment: env, removing: ["DBUS_SESSION_BUS_ADDRESS"])
    }
}

/// Starts an emulator for one test.
func startEmulator(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) async throws -> PortalEmulator {
    var configuration = EmulatorConfiguration.default
    configure(&configuration)
    return try await PortalEmulator.start(configuration)
}

let alicePassword = "alice-pass-123"

func login(_ emulator: PortalEmulator, password: String = alicePassword, extra: [String] = []) throws -> CLIResult {
    try CLI.portalAuth(["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"] + extra, emulator: emulator, stdin: password)
}

extension CLIResult {
    /// One line on stderr, starting with "portal-auth: ".
    var oneLineError: Bool {
        let lines = stderr.split(separator: "\n")
        return lines.count == 1 && lines[0].hasPrefix("portal-auth: ")
    }
}
