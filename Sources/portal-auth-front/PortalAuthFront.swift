internal import CPortalAuthFront
internal import PortalAuthBuildInfo

#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth`: a small program that answers `--version`, a misspelt command
/// (``UnknownCommand``), and `token URL` when the full
/// program already answered that exact request from the keyring and recorded the answer
/// (``AnswerBook``), and hands every other command line to `portal-auth-full` unchanged
/// (``FullProgram``), as git hands `git foo` to `git-foo`.
///
/// It carries neither Foundation, the argument parser, the transport nor the library: starting it
/// costs a fraction of the full program's start, which is most of a cached `token`'s time
/// (docs/development/performance.md). It decides nothing: the scope decision, the renewal leeway, the proxy
/// check and the rendering are the full program's, and it gives an answer only while everything
/// that answer was made from is as it was. Whatever it cannot tell goes to the full program,
/// which answers exactly as it would have (the differential tests run both).
@main
enum PortalAuthFront {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            var line = BuildInfo.versionLine + "\n"
            writeAll(1, &line)
            exit(0)
        }
        if var usage = UnknownCommand.message(for: arguments) {
            writeAll(2, &usage)
            markAnswered()
            exit(2)
        }
        if let request = TokenRequest(arguments), request.mayAnswer(), let answer = AnswerBook.answer(to: request) {
            var text = answer
            writeAll(1, &text)
            text.withUTF8 { pa_front_wipe(UnsafeMutableRawPointer(mutating: $0.baseAddress), $0.count) }
            markAnswered()
            exit(0)
        }
        FullProgram.run()
    }

    /// Appends a line to the file `PORTAL_AUTH_FAST_PATH_MARK` names, as the full program's fast
    /// path does (`TokenFastPath.markAnswered`), so that a test can tell that the answer was given
    /// here (`answered by portal-auth`).
    static func markAnswered() {
        guard let path = getenv("PORTAL_AUTH_FAST_PATH_MARK"), path.pointee != 0 else { return }
        let file = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else { return }
        let line = "answered by portal-auth\n"
        _ = line.utf8.withContiguousStorageIfAvailable { write(file, $0.baseAddress, $0.count) }
        close(file)
    }

    /// Writes a whole string to a file descriptor (as the full program's `writeAll`).
    static func writeAll(_ fd: Int32, _ text: inout String) {
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }
}
