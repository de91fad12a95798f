import Foundation

/// Kills the tier's servers when this process ends, however it ends: a `/bin/sh` child reads
/// process-group ids from a pipe whose write end only this process holds (close-on-exec, so
/// no other child inherits it). At end of file (this process is gone) it sends SIGTERM to each
/// group, SIGKILL a second later, and removes the directory.
final class Watchdog: Sendable {
    private let write: Int32

    init(directory: String) throws {
        let pipe = try Pipe2()
        let script = """
            groups=""
            while read -r group; do groups="$groups $group"; done
            for g in $groups; do kill -TERM "-$g" 2>/dev/null; done
            sleep 1
            for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
            rm -rf -- "$1"
            """
        do {
            // Its own process group, so a Ctrl-C to the test run does not kill it before the servers.
            _ = try Subprocess.spawn(
                "/bin/sh", ["-c", script, "portal-auth-webtier-watchdog", directory],
                environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"],
                stdin: pipe.read, newGroup: true)
        } catch {
            pipe.closeBoth()
            throw error
        }
        close(pipe.read)
        write = pipe.write
    }

    /// A private tier that is released stops its servers at once (the shared one never is).
    deinit { close(write) }

    /// Hands the process group of `pid` (a child started with a group of its own) to the watchdog.
    func track(_ pid: Int32) {
        let line = Array("\(pid)\n".utf8)
        _ = line.withUnsafeBytes { Foundation.write(write, $0.baseAddress, $0.count) }
    }
}
