import Foundation
import PortalEmulator
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What Tests/Clients/headless_browser.py (headless chromium driven by Selenium) reported of one
/// visit: the URL portal-auth opened and the pages it went through.
struct BrowserVisit {
    var report: [String: Any]

    /// The pages in order: url (no query), parameters (names), title, heading, text, action, loopback.
    var pages: [[String: Any]] { report["pages"] as? [[String: Any]] ?? [] }
    /// The names of the parameters of the URL portal-auth opened.
    var openedParameters: [String] { (report["opened"] as? [String: Any])?["parameters"] as? [String] ?? [] }
    /// The last page the browser showed.
    var last: [String: Any] { pages.last ?? [:] }
    /// What went wrong in the browser, if anything.
    var error: String? { report["error"] as? String }
}

/// Runs `command` (a portal-auth invocation that starts `$BROWSER URL`) with the headless
/// browser as `$BROWSER`, waits for both, and returns the command's result and the browser's
/// report. The browser writes its report into a FIFO after chromium has quit; a `cat` child
/// reads it, so "the browser is done" is a child process ending, awaited, never a sleep.
func withHeadlessBrowser(
    _ emulator: PortalEmulator, _ command: ([String: String]) async throws -> CLIResult
) async throws -> (CLIResult, BrowserVisit) {
    let python = try await RealClients.python()
    let fifo = temporaryPath("pa-browser-report")
    guard mkfifo(fifo, 0o600) == 0 else { throw SubprocessError("mkfifo \(fifo): errno \(errno)") }
    defer { unlink(fifo) }
    let environment = [
        "BROWSER": "\(python) \(RealClients.scripts)/headless_browser.py",
        "HEADLESS_BROWSER_CA": emulator.caCertificatePath, "HEADLESS_BROWSER_REPORT": fifo,
        "HEADLESS_BROWSER_TIMEOUT": "90", "PYTHONDONTWRITEBYTECODE": "1",
    ]
    async let reader = CLI.run("/bin/sh", ["-c", "exec cat \"$REPORT\""], environment: ["REPORT": fifo], timeout: 300)
    let result: CLIResult
    do {
        result = try await command(environment)
    } catch {
        releaseReader(fifo)
        _ = try? await reader
        throw error
    }
    if result.status != 0 { releaseReader(fifo) }  // the browser may never have started
    let report = try await reader
    let line = report.stdout.split(separator: "\n").last.map(String.init) ?? ""
    let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
    return (result, BrowserVisit(report: object))
}

/// Runs portal-auth with the headless browser's environment, trusting the emulator's CA, with
/// room for chromium to start on a loaded machine (CLI.portalAuth allows 90 s).
func portalAuthWithBrowser(
    _ arguments: [String], _ emulator: PortalEmulator, browser: [String: String], environment: [String: String]
) async throws -> CLIResult {
    var env = browser.merging(environment) { $1 }
    env["PORTAL_AUTH_CA_BUNDLE"] = emulator.caCertificatePath
    return try await CLI.run(CLI.portalAuth, arguments, environment: env, timeout: 240)
}

/// Gives the FIFO's reader an end of file when no browser will write to it.
private func releaseReader(_ fifo: String) {
    let fd = open(fifo, O_WRONLY | O_NONBLOCK)
    if fd >= 0 { close(fd) }
}

/// Expects a visit that signed in on a page titled `signInTitle` and ended on portal-auth's
/// loopback page saying so.
func expectSignedInThroughTheLoopback(
    _ visit: BrowserVisit, signInTitle: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(visit.error == nil, "browser: \(visit.report)", sourceLocation: sourceLocation)
    let signIn = visit.pages.first { $0["action"] as? String == "signed in" }
    #expect(
        (signIn?["title"] as? String)?.hasPrefix(signInTitle) == true, "pages: \(visit.pages)",
        sourceLocation: sourceLocation)
    // PKCE: portal-auth opened the authorize URL with a S256 code challenge.
    #expect(
        visit.openedParameters.contains("code_challenge") && visit.openedParameters.contains("code_challenge_method"),
        "opened: \(visit.report["opened"] ?? "none")", sourceLocation: sourceLocation)
    #expect(visit.last["loopback"] as? Bool == true, "last page: \(visit.last)", sourceLocation: sourceLocation)
    #expect(visit.last["title"] as? String == "Signed in", sourceLocation: sourceLocation)
    #expect(
        (visit.last["text"] as? String)?.contains("Signed in with portal-auth. You can close this tab.") == true,
        "loopback page: \(visit.last)", sourceLocation: sourceLocation)
}

/// portal-auth's browser sign-in and sign-out pages in a real browser: headless Debian chromium
/// driven by Selenium (Tests/Clients/headless_browser.py) as `$BROWSER`, on the sign-in pages of
/// portal-emulator's portal and of its Entra ID. One chromium at a time: the suite runs beside
/// every other test on two cores, and some of those still time things with the wall clock.
@Suite(.serialized) struct BrowserSignInTests {
    /// `login --client-id`: the portal's authorize page with PKCE, signed in and approved in the
    /// browser, back to the loopback page; the credential then answers `token` and `whoami`.
    @Test func oauthSignInThroughThePortalsPage() async throws {
        try await withPrivateKeyring { keyring in
            try await withEmulator { emulator in
                let (signIn, visit) = try await withHeadlessBrowser(emulator) { browser in
                    try await portalAuthWithBrowser(
                        ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-cli"], emulator,
                        browser: browser, environment: keyring.environment)
                }
                #expect(signIn.status == 0, "\(signIn.stderr)")
                #expect(signIn.stdout.contains("Signed in to \(emulator.portalURL) as alice with OAuth"))
                expectSignedInThroughTheLoopback(visit, signInTitle: "Sign in to")
                #expect((visit.pages.first?["url"] as? String)?.hasPrefix(emulator.portalURL) == true)
                #expect(emulator.counters().authorizationCodeGrants == 1)
                let whoami = try await CLI.portalAuth(["whoami"], emulator: emulator, environment: keyring.environment)
                #expect(whoami.stdout.contains("alice (Alice Anderson)"), "\(whoami.stderr)")
            }
        }
    }

    /// `login --config` for an identity-aware proxy: Entra ID's sign-in page (the consent: its
    /// approve button), the loopback page, a request through the proxy, then `logout --all`
    /// opens Entra's sign-out page in the browser.
    @Test func entraSignInThenSignOutPage() async throws {
        try await withPrivateKeyring { keyring in
            try await withEmulator(configuring: { $0.proxyPort = 0 }) { emulator in
                let config = try writeIAPConfig(emulator)
                defer { try? FileManager.default.removeItem(atPath: config) }
                let env = keyring.environment
                let (signIn, visit) = try await withHeadlessBrowser(emulator) { browser in
                    try await portalAuthWithBrowser(
                        ["login", "--config", config], emulator, browser: browser, environment: env)
                }
                #expect(signIn.status == 0, "\(signIn.stderr)")
                #expect(signIn.stdout.contains("as alice@example.com"), "\(signIn.stdout)")
                expectSignedInThroughTheLoopback(visit, signInTitle: "Sign in to your account")
                #expect((visit.pages.first?["url"] as? String)?.hasPrefix(emulator.entraBaseURL) == true)

                let request = try await CLI.portalAuth(
                    ["request", emulator.proxyBaseURL! + "/portal/sharing/rest/portals/self"], emulator: emulator,
                    environment: env)
                #expect(request.stdout.contains("Emulated Portal"), "\(request.stderr)")

                let (logout, signOut) = try await withHeadlessBrowser(emulator) { browser in
                    try await portalAuthWithBrowser(["logout", "--all"], emulator, browser: browser, environment: env)
                }
                #expect(logout.status == 0, "\(logout.stderr)")
                #expect(logout.stdout.contains("Signed out of the identity-aware proxy (alice@example.com)"))
                #expect(signOut.error == nil, "browser: \(signOut.report)")
                #expect((signOut.last["url"] as? String)?.hasPrefix(emulator.entraBaseURL + "/logout") == true)
                #expect(signOut.last["heading"] as? String == "You signed out of your account", "\(signOut.report)")
                #expect(emulator.counters().entraLogouts == 1)
            }
        }
    }
}
