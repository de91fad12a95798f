import CPortalAuth
public import Foundation
import NIOConcurrencyHelpers

/// What a finished child process produced.
public struct SubprocessResult: Sendable {
    /// The exit status, or 128 + the signal number when a signal ended it.
    public var status: Int32
    /// Everything it wrote to standard output.
    public var stdout: String
    /// Everything it wrote to standard error.
    public var stderr: String
    /// True when it was killed because it outlived its time limit.
    public var timedOut: Bool
}

/// Errors of the subprocess helpers.
public struct SubprocessError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// Creates an error that says what went wrong.
    public init(_ description: String) { self.description = description }
}

/// Runs child processes for tests without Foundation's `Process`.
///
/// Every child inherits exactly its three standard descriptors (see `pa_spawn`), so a daemon
/// started by one test (gnome-keyring-daemon, dbus-daemon) never holds another test's pipe open,
/// and the waiting happens on a thread of its own, never on Swift's cooperative pool, where the
/// in-process emulator's handlers run.
public enum Subprocess {
    /// The environment of this process with `removing` removed and `environment` applied.
    public static func environment(_ environment: [String: String], removing: [String] = []) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in removing { env.removeValue(forKey: key) }
        for (key, value) in environment { env[key] = value }
        return env
    }

    /// Runs `executable` to completion with `stdin` as its input (nil: /dev/null), capturing both
    /// outputs; kills it (and its process group) after `timeout` seconds.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil,
        environment: [String: String]? = nil, timeout: TimeInterval = 120
    ) async throws -> SubprocessResult {
        let env = environment ?? ProcessInfo.processInfo.environment
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result {
                        try runBlocking(executable, arguments, stdin: stdin, environment: env, timeout: timeout)
                    })
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The blocking form of ``run(_:_:stdin:environment:timeout:)``; call it on a thread you own.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], stdin: String?,
        environment: [String: String], timeout: TimeInterval
    ) throws -> SubprocessResult {
        let input = stdin == nil ? nil : try Pipe2()
        let out = try Pipe2(), err = try Pipe2()
        let pid: pid_t
        do {
            pid = try spawn(
                executable, arguments, environment: environment,
                stdin: input?.read ?? -1, stdout: out.write, stderr: err.write, newGroup: true)
        } catch {
            input?.closeBoth(); out.closeBoth(); err.closeBoth()
            throw error
        }
        if let input { close(input.read) }
        close(out.write); close(err.write)

        var pending = Array((stdin ?? "").utf8)
        var stdinFD: Int32 = input?.write ?? -1
        if stdinFD >= 0 {
            _ = fcntl(stdinFD, F_SETFL, fcntl(stdinFD, F_GETFL) | O_NONBLOCK)
            if pending.isEmpty { close(stdinFD); stdinFD = -1 }
        }
        var outputs: [Int32: [UInt8]] = [out.read: [], err.read: []]
        var open: Set<Int32> = [out.read, err.read]
        let deadline = Date().addingTimeInterval(timeout)
        var exitCode: Int32? = nil
        var exitedAt: Date? = nil
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65536)

        while !open.isEmpty || stdinFD >= 0 {
            if exitCode == nil {
                var code: Int32 = 0
                if pa_wait(pid, 1, &code) == pid { exitCode = code; exitedAt = Date() }
            }
            // A grandchild that kept our pipe (a daemon) must not hold us up once the child is gone.
            if let exitedAt, Date().timeIntervalSince(exitedAt) > 2 { break }
            if exitCode == nil, Date() > deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if stdinFD >= 0 { fds.append(pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), 100)
            if ready <= 0 { continue }
            for entry in fds where entry.revents != 0 {
                if entry.fd == stdinFD {
                    let written = pending.withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
                    if written > 0 { pending.removeFirst(written) }
                    if written < 0 && errno != EAGAIN || pending.isEmpty { close(stdinFD); stdinFD = -1 }
                    continue
                }
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    outputs[entry.fd]!.append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    open.remove(entry.fd)
                }
            }
        }
        if stdinFD >= 0 { close(stdinFD) }
        close(out.read); close(err.read)
        if exitCode == nil {
            var code: Int32 = 0
            if timedOut || Date() > deadline { kill(-pid, SIGKILL); kill(pid, SIGKILL) }
            _ = pa_wait(pid, 0, &code)
            exitCode = code
        }
        return SubprocessResult(
            status: exitCode ?? -1, stdout: String(decoding: outputs[out.read]!, as: UTF8.self),
            stderr: String(decoding: outputs[err.read]!, as: UTF8.self), timedOut: timedOut)
    }

    /// Starts a child with the given descriptors (-1: /dev/null) and returns its pid.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1, newGroup: Bool = true
    ) throws -> Int32 {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = pa_spawn(executable, argv, envp, stdin, stdout, stderr, newGroup ? 1 : 0, &pid)
        guard rc == 0 else { throw SubprocessError("cannot start \(executable): \(String(cString: strerror(rc)))") }
        return pid
    }
}

/// A pipe whose ends no other child inherits.
struct Pipe2 {
    let read: Int32
    let write: Int32
    init() throws {
        var fds: [Int32] = [-1, -1]
        guard pa_pipe_cloexec(&fds) == 0 else { throw SubprocessError("pipe: \(String(cString: strerror(errno)))") }
        read = fds[0]; write = fds[1]
    }
    func closeBoth() { close(read); close(write) }
}

/// A long-running child (a server, a daemon) whose standard output can be read line by line.
public final class ChildProcess: Sendable {
    /// Its process id.
    public let pid: Int32
    private let output: Int32
    private let state = NIOLockedValueBox<(exit: Int32?, buffered: [UInt8])>((nil, []))

    /// Starts `executable`; its standard output is readable with ``readLine(timeout:)`` and its
    /// standard error goes to `stderrPath` (nil: /dev/null).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stderrPath: String? = nil
    ) throws {
        let pipe = try Pipe2()
        var errFD: Int32 = -1
        if let stderrPath { errFD = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        defer { if errFD >= 0 { close(errFD) } }
        do {
            pid = try Subprocess.spawn(
                executable, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                stdout: pipe.write, stderr: errFD)
        } catch {
            pipe.closeBoth()
            throw error
        }
        close(pipe.write)
        output = pipe.read
    }

    /// The next line of standard output (without the newline), nil at end of file or after
    /// `timeout` seconds. Blocks: call it from a thread you own or through ``nextLine(timeout:)``.
    public func readLine(timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let line: String? = state.withLockedValue { state in
                guard let index = state.buffered.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                let line = String(decoding: state.buffered[..<index], as: UTF8.self)
                state.buffered.removeFirst(index + 1)
                return line
            }
            if let line { return line }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            var fd = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, Int32(min(remaining, 1) * 1000)) <= 0 { continue }
            let count = read(output, &chunk, chunk.count)
            if count <= 0 { return nil }
            state.withLockedValue { $0.buffered.append(contentsOf: chunk[0..<count]) }
        }
    }

    /// ``readLine(timeout:)`` on a thread of its own.
    public func nextLine(timeout: TimeInterval) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.readLine(timeout: timeout)) }
        }
    }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the child to exit and returns its status (128 + signal when a signal ended it).
    public func wait() async -> Int32 {
        if let exit = state.withLockedValue({ $0.exit }) { return exit }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var code: Int32 = 0
                if pa_wait(self.pid, 0, &code) != self.pid { code = self.state.withLockedValue { $0.exit } ?? -1 }
                self.state.withLockedValue { $0.exit = code }
                continuation.resume(returning: code)
            }
        }
    }

    /// Stops the child and its process group (SIGTERM, then SIGKILL after 5 s) and reaps it.
    public func stop() async -> Int32 {
        if let exit = state.withLockedValue({ $0.exit }) { return exit }
        kill(pid, SIGTERM)
        let pid = self.pid
        let killer = Task {
            try await Task.sleep(for: .seconds(5)); kill(-pid, SIGKILL); kill(pid, SIGKILL)
        }
        let code = await wait()
        killer.cancel()
        return code
    }

    deinit {
        close(output)
        if state.withLockedValue({ $0.exit }) == nil {
            kill(pid, SIGKILL)
            var code: Int32 = 0
            _ = pa_wait(pid, 0, &code)
        }
    }
}
