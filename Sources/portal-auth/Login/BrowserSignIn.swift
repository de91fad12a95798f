import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The CLI's user agent for browser sign-in: opens the page with `$BROWSER` or `xdg-open` (or
/// prints the URL with `--no-browser`), says on stderr what it waits for and how to cancel, and
/// reads pasted codes from the terminal (or from stdin when stdin is a pipe).
///
/// Outside `login`, a sign-in is only started when stdin is a terminal: scripts never end up
/// waiting for a browser.
struct TerminalAuthorizationUserAgent: AuthorizationUserAgent {
    /// Print the URL instead of opening a browser (SSH sessions).
    var noBrowser = false
    /// Whether a sign-in may start at all (true for `login`).
    var allowed = true
    /// The command to suggest when a sign-in may not start.
    var hint: String = "portal-auth login"
    /// What the page is for.
    enum Purpose { case signIn, signOut }
    /// Sign-in pages are waited on; sign-out pages are only opened.
    var purpose: Purpose = .signIn
    /// How to switch to the out-of-band flow (a code to paste), where the command has one.
    var outOfBandHint: String?

    func present(_ url: URL, redirectURI: String) async throws {
        if purpose == .signOut {
            try presentSignOut(url)
            return
        }
        guard allowed else {
            throw PortalAuthError(
                .authenticationRequired, "a new browser sign-in is needed and stdin is not a terminal: run \(hint)")
        }
        let loopback = redirectURI != AuthorizationRedirect.outOfBandURI
        defer {
            // Shown on a terminal while nobody has come back (the next request ends it).
            if loopback { _ = WaitNotice.shared.begin("the browser to come back to \(redirectURI)") }
        }
        try presentSignIn(url, redirectURI: redirectURI)
    }

    /// Opens the identity provider's sign-out page, or says which URL to open.
    private func presentSignOut(_ url: URL) throws {
        if noBrowser {
            printInfo("To finish signing out at the identity provider, open:\n\n    \(url.absoluteString)\n")
            return
        }
        do {
            let browser = try SystemBrowser().open(url)
            printInfo("Opened the sign-out page with \(browser).")
        } catch let error as PortalAuthError {
            printInfo(
                "\(error.message).\nTo finish signing out at the identity provider, open:\n\n    "
                    + "\(url.absoluteString)\n"
            )
        }
    }

    /// Opens the sign-in page (or says which URL to open, and why when no browser can be opened
    /// here) and what the sign-in waits for: the browser to come back to `redirectURI`, or a
    /// pasted code.
    private func presentSignIn(_ url: URL, redirectURI: String) throws {
        let waiting =
            redirectURI == AuthorizationRedirect.outOfBandURI
            ? "then paste the code the portal shows"
            : "waiting for the browser to come back to \(redirectURI)"
        if noBrowser {
            printInfo(
                "Open this URL in a browser to sign in:\n\n    "
                    + "\(url.absoluteString)\n\n\(waiting.prefix(1).uppercased() + waiting.dropFirst()) (Ctrl-C to "
                    + "cancel)."
            )
            return
        }
        if Self.hasNoDisplay() {
            // xdg-open would find no browser to start, and the sign-in would wait for nothing.
            printInfo(noDisplayMessage(url, redirectURI: redirectURI, waiting: waiting))
            return
        }
        do {
            let browser = try SystemBrowser().open(url)
            printInfo(
                "Opened the sign-in page with \(browser); \(waiting) (Ctrl-C to cancel).\nIf no browser appeared, "
                    + "open:\n\n    \(url.absoluteString)\n"
            )
        } catch let error as PortalAuthError {
            printInfo(
                "\(error.message).\nOpen this URL in a browser to sign in:\n\n    "
                    + "\(url.absoluteString)\n\n\(waiting.prefix(1).uppercased() + waiting.dropFirst()) (Ctrl-C to "
                    + "cancel)."
            )
        }
    }

    /// What to do when no browser can be opened here: open `url` elsewhere, and for a loopback
    /// `redirectURI`, forward its port here (or switch to the out-of-band flow).
    private func noDisplayMessage(_ url: URL, redirectURI: String, waiting: String) -> String {
        var advice = ""
        if redirectURI != AuthorizationRedirect.outOfBandURI {
            let port = URL(string: redirectURI)?.port.map(String.init) ?? "PORT"
            advice =
                "\nThe browser must reach \(redirectURI) on this machine: open the URL on a machine that forwards "
                + "that port here (ssh -L \(port):127.0.0.1:\(port) "
                + "THIS-HOST)\(outOfBandHint.map { ", or \($0) (the portal then shows a code to paste here)" } ?? "")."
        }
        return "No browser can be opened here: there is no display (DISPLAY and WAYLAND_DISPLAY are not set) and "
            + "BROWSER is not set.\nOpen this URL in a browser, on this machine or another one:\n\n    "
            + "\(url.absoluteString)\n\(advice)\n\(waiting.prefix(1).uppercased() + waiting.dropFirst()) "
            + "(Ctrl-C to cancel)."
    }

    /// No graphical session and no `$BROWSER`: nothing could show a sign-in page here.
    static func hasNoDisplay() -> Bool {
        func unset(_ name: String) -> Bool { environmentVariable(name).map { $0.isEmpty } ?? true }
        return unset("DISPLAY") && unset("WAYLAND_DISPLAY") && unset("BROWSER")
    }

    func readPastedResponse(_ prompt: String) async throws -> String {
        let text: String
        if stdinIsTerminal {
            text = try promptVisible(prompt)
        } else {
            printInfo(prompt.trimmingSpaces() + " (reading stdin)")
            text = readLineFromStdin()
        }
        guard !text.isEmpty else {
            throw PortalAuthError(.cancelled, "nothing was pasted, so the sign-in was abandoned; nothing was stored")
        }
        return text
    }
}

/// Progress for people, on stderr (stdout stays for results).
func printInfo(_ message: String) {
    var line = terminalText(message, keepingLines: true) + "\n"
    writeAll(2, &line)
}

/// One line from stdin, without the newline ("" at end of file).
func readLineFromStdin() -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
        let n = read(0, &byte, 1)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 || byte == UInt8(ascii: "\n") { break }
        bytes.append(byte)
    }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " { slice = slice.dropFirst() }
        while let last = slice.last, last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}
