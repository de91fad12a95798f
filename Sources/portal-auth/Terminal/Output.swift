// How every command ends and speaks: stdout, stderr (one line per error), exit codes.
import ArgumentParser
import PortalAuth
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Ends the process with `code`: every way out of `portal-auth` comes here (the end of a command,
/// an error, a usage error or help, the `token` fast path).
///
/// First the HTTP transport is shut down in order: its libcurl thread is stopped and joined, its
/// connections closed (`curl_multi_cleanup`) and libcurl ended (`curl_global_cleanup`). Then
/// `_exit`, after flushing stdio, instead of `exit`: `exit` runs the atexit handlers and the
/// shared libraries' destructors (OpenSSL's `OPENSSL_cleanup`, GLib's, libcurl's) while threads
/// this program does not own still run — libsecret's GDBus worker, Swift's cooperative pool, a
/// detached handshake probe — and freeing what one of them uses is the crash at exit that 2 runs
/// in 1,900 showed (`double free or corruption` in `OPENSSL_cleanup`, `malloc_consolidate` in
/// `_dl_fini`). Nothing those destructors do matters to the result: output goes out with
/// `write(2)` (or stdio, flushed here), keyring writes are finished before a command returns,
/// and files are written and renamed before it does.
func exitProcess(_ code: Int32) -> Never {
    CurlTransport.shutdownAll()
    fflush(nil)
    _exit(code)
}

/// Runs a command body and turns errors into one line on stderr and an exit code.
func runReportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as PortalAuthError {
        throw ExitCode(report(error))
    } catch let challenge as TransportChallengeError {
        throw ExitCode(report(challenge.error))
    }
}

/// Prints an error as every command does (one line: the message and the command that fixes it;
/// the details too with PORTAL_AUTH_DEBUG_ERRORS) and returns the exit code that goes with it.
///
/// With `PORTAL_AUTH_ERROR_FORMAT=json` (for programs that run portal-auth, such as the Python
/// adapter) the line is a JSON object instead, `{"error":{"code":"noCredential","exit":3,
/// "message":"…"}}`: `code` is the library's ``PortalAuthError/Code``, so a program tells "nothing
/// is stored for this URL" from other failures without reading English (docs/reference/exit-codes.md).
func report(_ error: PortalAuthError) -> Int32 {
    let error = environmentAPIKeyInUse.load(ordering: .relaxed) ? error.fromEnvironmentKey() : error
    if environmentVariable("PORTAL_AUTH_ERROR_FORMAT") == "json" {
        var line = ErrorLine(error).json + "\n"
        writeAll(2, &line)
        return exitCode(for: error.code)
    }
    printError(error.cliMessage)
    if environmentVariable("PORTAL_AUTH_DEBUG_ERRORS") != nil { printError(error.detailedDescription) }
    return exitCode(for: error.code)
}

/// The exit status of `status --check` when a credential that cannot renew itself expires within
/// the window or has expired (docs/reference/exit-codes.md).
let credentialsExpiringExitCode: Int32 = 6

/// The exit status for an error code (docs/reference/exit-codes.md).
func exitCode(for code: PortalAuthError.Code) -> Int32 {
    switch code {
    case .noCredential, .credentialExpired, .authenticationRequired, .authenticationFailed, .invalidToken, .cancelled,
        .secretMissing, .notFederated:
        return 3
    case .hostNotFound, .connectionFailed, .timedOut, .tlsFailure, .untrustedServer, .insecureTransport: return 4
    case .keyringUnavailable, .keyringLocked, .storeFailure: return 5
    case .invalidArgument, .invalidURL, .invalidConfiguration: return 2
    default: return 1
    }
}

func printError(_ message: String) {
    // Messages can quote servers (ArcGIS and Entra error texts): no control characters reach the terminal.
    var line = "portal-auth: " + terminalText(message) + "\n"
    writeAll(2, &line)
}

/// `text` made safe for a terminal: every control character (the ESC of escape sequences, BEL,
/// a lone carriage return, C1 controls) becomes a space; with `keepingLines`, line feeds, tabs
/// and CRLF line ends (`--format gdal` joins headers with them) stay.
/// Whatever a server or a command line says passes through here before it is printed.
func terminalText(_ text: String, keepingLines: Bool = false) -> String {
    // Almost always nothing to do (checked on the bytes: C1 controls are UTF-8 C2 80...C2 9F).
    let bytes = text.utf8
    var clean = true
    var previous: UInt8 = 0
    for byte in bytes {
        let printable = byte >= 0x20 && byte != 0x7F && byte != 0xC2
        let lineEnd = keepingLines && (byte == 0x0A || byte == 0x09 || byte == 0x0D)
        if !(printable || lineEnd) || (previous == 0x0D && byte != 0x0A) {
            clean = false
            break
        }
        previous = byte
    }
    if clean, previous != 0x0D { return text }
    var scalars = String.UnicodeScalarView()
    let all = Array(text.unicodeScalars)
    for (index, scalar) in all.enumerated() {
        let crlf = scalar == "\r" && index + 1 < all.count && all[index + 1] == "\n"
        let kept =
            scalar.properties.generalCategory != .control
            || (keepingLines && (scalar == "\n" || scalar == "\t" || crlf))
        scalars.append(kept ? scalar : " ")
    }
    return String(scalars)
}

/// A warning on stderr: something works but is likely to fail later.
func printWarning(_ message: String) {
    printInfo("portal-auth: warning: " + message)
}

/// Prints to stdout, without control characters but line feeds and tabs (``terminalText(_:keepingLines:)``).
func output(_ text: String) {
    var line = terminalText(text, keepingLines: true) + "\n"
    writeAll(1, &line)
}

/// Prints one line to stdout, without any control character (``terminalText(_:keepingLines:)``
/// without `keepingLines`): for a line that quotes what a server said (a user, full name, email,
/// portal or app name), whose line feed must not start a line of its own.
func outputLine(_ text: String) {
    var line = terminalText(text) + "\n"
    writeAll(1, &line)
}

/// Prints to stdout as it is: what a command was asked to pass on unchanged (`request --raw`).
func outputRaw(_ text: String) {
    var line = text + "\n"
    writeAll(1, &line)
}

/// Writes a whole string to a file descriptor.
func writeAll(_ fd: Int32, _ text: inout String) {
    if fd == 2 || fd == 1 { WaitNotice.shared.clearBeforeOutput() }
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

extension Date {
    /// ISO 8601 in UTC, for people and JSON.
    var iso8601: String { formatted(.iso8601) }
}
