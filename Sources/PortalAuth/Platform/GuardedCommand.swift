internal import CPortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// A command run in the foreground while a private folder beside it holds a secret (a header
/// file with a live token), under a signal guard: whatever signal arrives, the folder does not
/// outlive this process (only SIGKILL, which cannot be caught, can leave it; the program removes
/// it on its next run).
///
/// The order of calls is the guard's contract:
///
/// 1. ``guardSignals()``, before the folder exists: from here on every signal whose default
///    action ends the process is caught (one ignored now, as under `nohup`, stays ignored, for the
///    command too).
/// 2. ``removeOnSignal(_:)`` with the folder, once it is created.
/// 3. ``start(_:environment:)``: the command, with this process's standard input, output and
///    error and no other descriptor. A signal another process sends (a service manager's TERM, a
///    user's `kill`) is passed on to it from now on, and this process goes on waiting; one the
///    terminal sent to the whole foreground group (Ctrl-C) reached the command already and is not
///    passed on; one about this process itself (a fault, its own timers or limits) removes the
///    folder, stops the command with TERM and ends this process with that signal.
/// 4. ``waitForExit()``: the command's exit status; signals are no longer passed on.
/// 5. The caller removes the folder, then ``forgetFolder()``.
public struct GuardedCommand: Sendable {
    /// Why the guard could not be set up or the command not started: the `errno` value of the
    /// system call that failed.
    public struct Failure: Error, Sendable, Equatable {
        /// The `errno` value (`ENOENT`: no such command; `EACCES`: not executable; …).
        public let code: Int32

        /// The system's description of ``code`` (`strerror`), e.g. "No such file or directory".
        public var reason: String { String(cString: strerror(code)) }

        /// A failure with the `errno` value `code`.
        public init(code: Int32) { self.code = code }
    }

    /// The command's process id.
    public let processID: Int32

    /// Catches every signal whose default action ends the process (HUP, INT, QUIT, TERM, USR1,
    /// USR2, ALRM, PIPE, the faults, the real-time signals, …), as described above.
    ///
    /// - Throws: ``Failure`` with the `errno` of the `sigaction` that failed; nothing should be
    ///   run then, since a signal could leave the folder behind.
    public static func guardSignals() throws(Failure) {
        let failure = pa_exec_guard_begin()
        guard failure == 0 else { throw Failure(code: failure) }
    }

    /// Names the folder that a signal about this process itself removes (with async-signal-safe
    /// calls only) before it ends the process.
    ///
    /// - Throws: ``Failure`` with `ENAMETOOLONG` when the path is longer than the guard keeps
    ///   (a shorter temporary folder, `TMPDIR`, avoids it).
    public static func removeOnSignal(_ folder: String) throws(Failure) {
        let failure = pa_exec_guard_folder(folder)
        guard failure == 0 else { throw Failure(code: failure) }
    }

    /// No folder to remove any more (the caller removed it): a signal from now on removes nothing.
    public static func forgetFolder() {
        pa_exec_guard_folder(nil)
    }

    /// Starts `command` (its first word looked up in `PATH`) with `environment` and this
    /// process's standard input, output and error; every other descriptor is closed, the signal
    /// mask and dispositions reset. Signals are passed on to it from now on (see above), those
    /// that arrived before included.
    ///
    /// - Throws: ``Failure`` with the `errno` of the start: `ENOENT` when there is no such
    ///   command (or `command` is empty), another value (`EACCES`, …) when it cannot be run.
    public static func start(_ command: [String], environment: [String: String]) throws(Failure) -> GuardedCommand {
        guard let path = command.first else { throw Failure(code: ENOENT) }
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let failure = pa_spawn(path, argv, envp, 0, 1, 2, 0, &pid)
        guard failure == 0 else { throw Failure(code: failure) }
        pa_exec_guard_child(pid)
        return GuardedCommand(processID: pid)
    }

    /// Waits for the command to exit (on a thread of its own, not Swift's cooperative pool),
    /// stops passing signals on to it and reaps it; its exit status, or 128 + the signal that
    /// ended it.
    public func waitForExit() async -> Int32 {
        let child = processID
        return await withCheckedContinuation { continuation in
            BlockingIO.detached {
                var code: Int32 = -1
                _ = pa_exec_guard_wait(child, &code)
                continuation.resume(returning: code)
            }
        }
    }
}
