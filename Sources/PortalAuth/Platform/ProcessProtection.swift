internal import CPortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// Protections for a process that holds credentials in memory, for a program to apply to itself.
///
/// The library never applies them behind a program's back: they change the whole process (a
/// debugger can no longer attach, a crash leaves no core file to inspect), which is the program's
/// decision. The `portal-auth` command applies them at start-up.
public enum ProcessProtection {
    /// Turns core dumps off for this process: `RLIMIT_CORE` 0 and `prctl(PR_SET_DUMPABLE, 0)`.
    ///
    /// A core file of a process that signed in holds its access and refresh tokens and any
    /// password it read. The second call also stops a `core_pattern` pipe (systemd-coredump,
    /// apport) that ignores `RLIMIT_CORE`, and keeps other processes of the same user from
    /// attaching with `ptrace`. Call it early, before any secret is read.
    ///
    /// - Throws: ``PortalAuthError`` with code ``PortalAuthError/Code/internalError`` when the
    ///   system refused (both calls are tried either way).
    public static func disableCoreDumps() throws {
        let failure = pa_disable_core_dumps()
        guard failure == 0 else {
            let reason = String(cString: strerror(failure))
            throw PortalAuthError(
                .internalError, "core dumps could not be turned off (\(reason))",
                cause: .posix(code: failure, message: reason))
        }
    }
}
