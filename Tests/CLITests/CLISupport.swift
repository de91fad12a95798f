import Foundation
import PortalEmulator
import TestSupport
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
    /// The full program, which the small `portal-auth` hands every command line it does not answer to.
    static var portalAuthFull: String { binDirectory.appendingPathComponent("portal-auth-full").path }

    /// Runs a program with stdin from a string (or /dev/null), capturing stdout and stderr.
    /// The child inherits no other descriptor and is waited for on a thread of its own (blocking
    /// the cooperative pool would starve the in-process emulator, whose handlers run there).
    static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        removing: [String] = [], timeout: TimeInterval = 90
    ) async throws -> CLIResult {
        let result = try await Subprocess.run(
            executable, arguments, stdin: stdin,
            environment: Subprocess.environment(environment, removing: removing), timeout: timeout)
        if result.timedOut { Issue.record("\(executable) \(arguments) did not finish within \(timeout) s") }
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Runs portal-auth trusting the emulator's CA.
    /// `full`: `portal-auth-full` itself, not through the small `portal-auth`.
    static func portalAuth(
        _ arguments: [String], emulator: PortalEmulator?, stdin: String? = nil, environment: [String: String] = [:],
        removing: [String] = [], full: Bool = false
    ) async throws -> CLIResult {
        var env = environment
        if let emulator, env["PORTAL_AUTH_CA_BUNDLE"] == nil {
            env["PORTAL_AUTH_CA_BUNDLE"] = emulator.caCertificatePath
        }
        return try await run(
            full ? portalAuthFull : portalAuth, arguments, stdin: stdin, environment: env, removing: removing)
    }

    /// `secret-tool search --all application portal-auth server S` output (stdout + stderr).
    static func keyringItems(server: String, environment: [String: String] = [:]) async throws -> String {
        let r = try await run(
            "/usr/bin/secret-tool", ["search", "--all", "application", "portal-auth", "server", server],
            environment: environment)
        return r.stdout + r.stderr
    }

    /// Runs a shell script on its own D-Bus session bus with its own gnome-keyring.
    /// `unlock` false leaves the keyring without an unlocked default collection.
    static func inPrivateKeyring(
        _ script: String, unlock: Bool = true, environment: [String: String] = [:]
    ) async throws -> CLIResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-keyring-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let start =
            unlock
            ? "printf %s pw | XDG_DATA_HOME=\"$XDG_RUNTIME_DIR/data\" gnome-keyring-daemon --unlock --components=secrets >/dev/null"
            : "XDG_DATA_HOME=\"$XDG_RUNTIME_DIR/data\" gnome-keyring-daemon --start --components=secrets >/dev/null"
        var env = environment
        env["XDG_RUNTIME_DIR"] = dir
        env["PA"] = portalAuth
        return try await run(
            "/usr/bin/dbus-run-session", ["--", "/bin/sh", "-c", start + "\n" + script], environment: env,
            removing: ["DBUS_SESSION_BUS_ADDRESS"])
    }
}

let alicePassword = "alice-pass-123"

func login(
    _ emulator: PortalEmulator, password: String = alicePassword, extra: [String] = [],
    environment: [String: String] = [:]
) async throws -> CLIResult {
    try await CLI.portalAuth(
        ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"] + extra,
        emulator: emulator, stdin: password, environment: environment)
}

extension CLIResult {
    /// One line on stderr, starting with "portal-auth: ".
    var oneLineError: Bool {
        let lines = stderr.split(separator: "\n")
        return lines.count == 1 && lines[0].hasPrefix("portal-auth: ")
    }
}

/// Rewrites the pregenerated token stored for `url` in the keyring of `environment` with an expiry in
/// 1970 (the item replaced with `secret-tool`, the credential JSON otherwise unchanged).
///
/// - Parameter attributes: the item's `kind` and any other attributes, as `secret-tool` takes them.
func expireStoredToken(
    _ url: String, environment: [String: String], attributes: [String] = ["kind", "pregenerated-token"]
) async throws {
    let script = #"""
        u=$1; shift
        s=$(secret-tool lookup application portal-auth store arcgis server "$u") || exit 10
        case "$s" in *'"expirationDate":'*) ;; *) exit 11 ;; esac
        secret-tool clear application portal-auth store arcgis server "$u" || exit 12
        printf %s "$s" | sed 's/"expirationDate":[0-9.e+]*/"expirationDate":1000/' |
          secret-tool store --label="portal-auth: expired @ $u" application portal-auth store arcgis server "$u" \
            "$@" || exit 13
        """#
    let r = try await Subprocess.run(
        "/bin/sh", ["-c", script, "sh", url] + attributes, environment: Subprocess.environment(environment))
    #expect(r.status == 0, "\(r.stderr)")
}
