public import Foundation
import NIOConcurrencyHelpers

/// The real clients users run against a portal, for the tests that drive them: the ArcGIS API
/// for Python and Selenium (headless Debian chromium through chromium-driver), installed in the
/// virtual environment `scripts/support/setup-python.sh` makes and caches, and the scripts in
/// `Tests/Clients`.
public enum RealClients {
    /// The repository's root folder (the one holding `scripts/` and `Tests/`).
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url = url.deletingLastPathComponent()
            let marker = url.appendingPathComponent("scripts/support/setup-python.sh").path
            if FileManager.default.fileExists(atPath: marker) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()

    /// The folder of the client scripts, `Tests/Clients`.
    public static var scripts: String { repositoryRoot + "/Tests/Clients" }

    /// The Debian chromium and chromium-driver executables `scripts/setup.sh` installs.
    public static let chromium = "/usr/bin/chromium"
    /// See ``chromium``.
    public static let chromeDriver = "/usr/bin/chromedriver"

    private static let environmentTask = NIOLockedValueBox<Task<String, any Error>?>(nil)

    /// The virtual environment's folder: `scripts/support/setup-python.sh` run once per test process
    /// (it answers at once when the environment is cached, and builds it otherwise, so a bare
    /// `swift test` works too).
    public static func virtualEnvironment() async throws -> String {
        let task = environmentTask.withLockedValue { task in
            if let task { return task }
            let made = Task { () async throws -> String in
                let setup = try await Subprocess.run(
                    "/bin/bash", [repositoryRoot + "/scripts/support/setup-python.sh"], timeout: 900)
                let path = setup.stdout.split(separator: "\n").last.map(String.init) ?? ""
                guard setup.status == 0, !setup.timedOut, path.hasPrefix("/") else {
                    throw SubprocessError(
                        "scripts/support/setup-python.sh could not make the client tests' Python environment "
                            + "(exit \(setup.status)): \(setup.stderr.suffix(2_000))")
                }
                return path
            }
            task = made
            return made
        }
        return try await task.value
    }

    /// The virtual environment's Python interpreter.
    public static func python() async throws -> String {
        try await virtualEnvironment() + "/bin/python"
    }

    /// Runs `Tests/Clients/<script>` with the virtual environment's Python, waits for it, and
    /// returns what it printed. Secrets go in `environment`, never in `arguments`.
    public static func runScript(
        _ script: String, _ arguments: [String] = [], environment: [String: String] = [:], timeout: TimeInterval = 180
    ) async throws -> SubprocessResult {
        let python = try await python()
        let result = try await Subprocess.run(
            python, [scripts + "/" + script] + arguments,
            environment: Subprocess.environment(environment.merging(["PYTHONDONTWRITEBYTECODE": "1"]) { $1 }),
            timeout: timeout)
        if result.timedOut {
            throw SubprocessError("\(script) \(arguments) did not finish within \(Int(timeout)) s: \(result.stderr)")
        }
        return result
    }

    /// The JSON object a client script printed as its last line of standard output.
    public static func report(_ result: SubprocessResult) throws -> [String: Any] {
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw SubprocessError(
                "the client script printed no JSON report (exit \(result.status)): \(result.stdout.suffix(1_000)) "
                    + result.stderr.suffix(3_000))
        }
        return object
    }
}
