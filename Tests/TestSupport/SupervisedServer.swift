import CPortalAuth
import Foundation
import NIOConcurrencyHelpers

/// A server of the web tier (nginx, Apache httpd, the KDC): started in a process group of its own,
/// handed to the watchdog, ready once every port accepts a connection and `answers` (when given)
/// says the server itself answers, and started again, on the same ports and configuration, if it
/// ever exits while the test process runs.
///
/// Why: on a CI run Apache accepted connections at start and was gone seconds later, before any
/// test reached it, leaving no trace but "connection refused" in eight tests. A server that exits
/// is now named on standard error with the tail of its logs and its exit status, then restarted
/// (at most ``maximumRestarts`` times), so the reason is in the run's output and the tests that
/// come after still find their server.
final class SupervisedServer: Sendable {
    let name: String
    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private let output: String
    private let logs: [String]
    private let ports: [Int]
    private let answers: (@Sendable () -> Bool)?
    private let watchdog: Watchdog
    /// The running server's pid and how often it was restarted.
    private let state = NIOLockedValueBox<(pid: Int32, restarts: Int)>((0, 0))

    /// How many times a server that exits is started again.
    static let maximumRestarts = 3

    /// Starts the server; call ``waitUntilReady()`` before using it.
    init(
        name: String, executable: String, arguments: [String], environment: [String: String], output: String,
        logs: [String], ports: [Int], answers: (@Sendable () -> Bool)? = nil, watchdog: Watchdog
    ) throws {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.output = output
        self.logs = logs
        self.ports = ports
        self.answers = answers
        self.watchdog = watchdog
        let pid = try spawn()
        state.withLockedValue { $0.pid = pid }
    }

    /// The pid of the server now running.
    var pid: Int32 { state.withLockedValue { $0.pid } }

    private func spawn() throws -> Int32 {
        let fd = open(output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { if fd >= 0 { close(fd) } }
        let pid = try Subprocess.spawn(
            executable, arguments, environment: environment, stdout: fd, stderr: fd, newGroup: true)
        watchdog.track(pid)
        return pid
    }

    /// Waits (up to 30 s) until every port accepts a connection and the server answers; a server
    /// that exits meanwhile is started again (within ``maximumRestarts``). Then watches it on a
    /// thread of its own for the rest of the process.
    func waitUntilReady() throws {
        while let status = try waitUntilReadyOrExit(pid: pid) { try restart(after: status, of: pid) }
        let pid = self.pid
        // Weak: a private tier that is released stops its servers (its watchdog) and is not restarted.
        let server: @Sendable () -> SupervisedServer? = { [weak self] in self }
        let thread = Thread { Self.supervise(server, pid: pid) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// nil once ready; the exit status when the server exited first.
    private func waitUntilReadyOrExit(pid: Int32) throws -> Int32? {
        let deadline = Date().addingTimeInterval(30)
        var pending = ports
        while true {
            pending.removeAll { canConnect(port: $0) }
            if pending.isEmpty, answers?() ?? true { return nil }
            var code: Int32 = 0
            if pa_wait(pid, 1, &code) == pid { return code }
            if Date() > deadline {
                let waitingFor = pending.isEmpty ? "does not answer" : "does not accept connections on \(pending)"
                throw WebTierError("\(name) \(waitingFor) after 30 s\n\(logTails())")
            }
            usleep(50_000)
        }
    }

    /// Blocks until the server `pid` exits, then names it and starts it again while `server` is
    /// still in use; forever, within the limit.
    private static func supervise(_ server: @Sendable () -> SupervisedServer?, pid: Int32) {
        var pid = pid
        while true {
            var code: Int32 = 0
            guard pa_wait(pid, 0, &code) == pid, let running = server() else { return }
            do {
                try running.restart(after: code, of: pid)
                while let status = try running.waitUntilReadyOrExit(pid: running.pid) {
                    try running.restart(after: status, of: running.pid)
                }
                pid = running.pid
            } catch {
                running.report("\(error)")
                return
            }
        }
    }

    private func restart(after status: Int32, of pid: Int32) throws {
        let restarts = state.withLockedValue { $0.restarts }
        report("\(name) (pid \(pid)) exited with status \(status)\n\(logTails())")
        guard restarts < Self.maximumRestarts else {
            throw WebTierError("\(name) exited \(restarts + 1) times; not started again\n\(logTails())")
        }
        let new = try spawn()
        state.withLockedValue { $0 = (new, $0.restarts + 1) }
        report("\(name) started again (pid \(new), restart \(restarts + 1) of \(Self.maximumRestarts))")
    }

    private func logTails() -> String {
        (logs + [output]).map { "--- \($0):\n\(tail($0))" }.joined(separator: "\n")
    }

    private func report(_ text: String) {
        FileHandle.standardError.write(Data("[web tier] \(text)\n".utf8))
    }
}
