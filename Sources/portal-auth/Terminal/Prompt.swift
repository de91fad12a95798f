import PortalAuth
import PortalAuthPassword
import PortalAuthServerTrust
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Whether standard input is a terminal.
var stdinIsTerminal: Bool { isatty(0) == 1 }

/// Reads a whole secret from standard input (one trailing newline removed). Empty → error.
func readSecretFromStdin(what: String, flag: String) throws -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(0, &buffer, buffer.count)
        if n < 0 { if errno == EINTR { continue }; break }
        if n == 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
        if bytes.count > 1 << 20 {
            throw PortalAuthError(.invalidArgument, "\(flag): more than 1 MiB on stdin; pass only the \(what)")
        }
    }
    if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    let secret = String(decoding: bytes, as: UTF8.self)
    guard !secret.isEmpty else {
        throw PortalAuthError(
            .secretMissing,
            "\(flag) read an empty \(what) from stdin: pipe it in, for example printf '%s' \"$SECRET\" | portal-auth "
                + "... \(flag)"
        )
    }
    for i in bytes.indices { bytes[i] = 0 }
    return secret
}

/// Prompts on the controlling terminal with echo off.
func promptHidden(_ prompt: String) throws -> String {
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
    guard fd >= 0 else {
        throw PortalAuthError(.secretMissing, "no terminal to ask for the password on", remedy: .provide(.password))
    }
    defer { close(fd) }
    var old = termios()
    let haveTermios = tcgetattr(fd, &old) == 0
    var handlers: [(Int32, __sighandler_t?)] = []
    if haveTermios {
        // Ctrl-C (or a kill, or a hangup) while echo is off: the handler turns it on again and ends
        // the line before the signal ends the process as it would have.
        (promptTerminalFD, promptTerminalSettings) = (fd, old)
        handlers = [SIGINT, SIGTERM, SIGHUP, SIGQUIT].map { ($0, signal($0, restorePromptTerminal)) }
        var silent = old
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSAFLUSH, &silent)
    }
    defer {
        if haveTermios { var restore = old; tcsetattr(fd, TCSAFLUSH, &restore) }
        for (number, handler) in handlers { signal(number, handler) }
        promptTerminalFD = -1
        _ = "\n".withCString { write(fd, $0, 1) }
    }
    _ = prompt.withCString { write(fd, $0, strlen($0)) }  // after echo is off and the handlers are in place
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
    return String(decoding: bytes, as: UTF8.self)
}

/// The terminal a hidden prompt turned echo off on (-1: none), and its settings before.
nonisolated(unsafe) private var promptTerminalFD: Int32 = -1
nonisolated(unsafe) private var promptTerminalSettings = termios()

/// The handler of a signal that arrives at a hidden prompt: restores the terminal's settings
/// (echo on), ends the prompt's line, then lets the signal end the process as it would have.
/// Only async-signal-safe calls.
private func restorePromptTerminal(_ number: Int32) {
    if promptTerminalFD >= 0 {
        _ = tcsetattr(promptTerminalFD, TCSAFLUSH, &promptTerminalSettings)
        var newline = UInt8(ascii: "\n")
        _ = write(promptTerminalFD, &newline, 1)
    }
    signal(number, SIG_DFL)
    raise(number)
}

/// Prompts on the terminal for text with echo on.
func promptVisible(_ prompt: String) throws -> String {
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { throw PortalAuthError(.invalidArgument, "no terminal to ask on: give the value as an option") }
    defer { close(fd) }
    _ = prompt.withCString { write(fd, $0, strlen($0)) }
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
    return String(decoding: bytes, as: UTF8.self)
}

/// Asks on the terminal for a username (unless known) and a password for `place`; nil when no
/// username is typed. Callers check first that stdin is a terminal.
func promptUsernameAndPassword(
    place: String, realm: String = "", user: String?
) throws -> (username: String, password: String)? {
    let name = try user ?? promptVisible("Username for \(place)\(realm): ")
    guard !name.isEmpty else { return nil }
    let password = try promptHidden("Password for \(name) @ \(place): ")
    guard !password.isEmpty else {
        throw PortalAuthError(.secretMissing, "no password was typed for \(name) @ \(place)")
    }
    return (name, password)
}

/// The CLI's provider: asks on the terminal when stdin is one, and otherwise fails with the
/// command to run (scripts never hang on a prompt).
struct TerminalPasswordProvider: UsernamePasswordProvider {
    var username: String?

    func usernameAndPassword(
        for challenge: ArcGISAuthenticationChallenge
    ) async throws -> (username: String, password: String)? {
        let user = username ?? challenge.previousCredential?.username
        guard stdinIsTerminal else {
            throw PortalAuthError(
                .authenticationRequired,
                "\(challenge.serverContext) requires sign-in (\(challenge.error.code) \(challenge.error.message)) and "
                    + "stdin is not a terminal to ask on",
                remedy: .signIn(.token(challenge.serverContext, username: user)))
        }
        return try promptUsernameAndPassword(place: challenge.serverContext.description, user: user)
    }
}

/// The CLI's provider for HTTP 401 challenges: asks on the terminal when stdin is one, and
/// otherwise fails with the command to run.
struct TerminalNetworkPasswordProvider: NetworkPasswordProvider {
    func usernameAndPassword(
        for challenge: NetworkAuthenticationChallenge
    ) async throws -> (username: String, password: String)? {
        let user = challenge.previousCredential?.username
        guard stdinIsTerminal else {
            throw PortalAuthError(
                .authenticationRequired,
                "\(challenge.message) and stdin is not a terminal to ask on",
                remedy: .provideHTTPPassword(url: challenge.requestURL))
        }
        var realm = ""
        if case .httpAuthentication(_, let named?) = challenge.kind { realm = " (realm \"\(named)\")" }
        return try promptUsernameAndPassword(
            place: "\(challenge.host.host):\(challenge.host.port)", realm: realm, user: user)
    }
}

/// The CLI's server-trust decider: shows the certificate and asks on the terminal; without a
/// terminal it trusts nothing (portal-auth trust HOST --fingerprint confirms non-interactively).
struct TerminalServerTrustDecider: ServerTrustDecider {
    func shouldTrust(_ report: ServerCertificateReport) async throws -> Bool {
        printInfo(describeCertificate(report))
        let answer = try promptVisible(
            "Trust this certificate for \(report.host):\(report.port) (its key is pinned for this host and port "
                + "only)? [y/N] "
        )
        return ["y", "yes"].contains(answer.filter { !$0.isWhitespace }.lowercased())
    }
}

/// The lines `trust` and the prompt show about a server's certificate.
func describeCertificate(_ report: ServerCertificateReport) -> String {
    let certificate = report.certificate
    var lines = [
        "The certificate of \(report.host):\(report.port)\(report.failure.map { " is not trusted (\($0.rawValue))" } ?? " verifies against the trusted CAs"):"
    ]
    lines.append("  subject:  \(certificate.subject)")
    lines.append("  issuer:   \(certificate.issuer)")
    lines.append(
        "  valid:    \(certificate.notBefore.iso8601) to "
            + "\(certificate.notAfter.iso8601)\(certificate.isExpired() ? " (EXPIRED)" : "")"
    )
    lines.append("  SHA-256:  \(certificate.sha256Fingerprint)")
    return lines.joined(separator: "\n")
}
