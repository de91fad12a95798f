import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth renew`: the sign-ins that can renew themselves are renewed now, through the
/// manager, when they would expire within the window; the others are named, and it exits 6 as
/// `status --check` does.
@Suite struct RenewTests {
    @Test func aRememberedPasswordSignInIsRenewedWithinTheWindowAndLeftAloneOutsideIt() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn(["--remember-password"])
            let before = serve.emulator.counters().generateTokenRequests
            // The token lives an hour: outside a 5-minute window nothing happens...
            let early = try await serve.use.portalAuth(["renew", "--within", "5m"])
            #expect(early.status == 0, "\(early.stderr)")
            #expect(early.stdout.contains("(alice) token: valid until 20"), "\(early.stdout)")
            #expect(early.stdout.hasSuffix(", nothing to do\n"), "\(early.stdout)")
            #expect(serve.emulator.counters().generateTokenRequests == before)
            // ...within the default day it is renewed, once, and the new token works.
            let old = try await serve.use.token(serve.emulator.portalURL)
            serve.emulator.clock.advance(by: .seconds(1800))
            let renewed = try await serve.use.portalAuth(["renew"])
            #expect(renewed.status == 0, "\(renewed.stderr)")
            #expect(
                renewed.stdout.hasPrefix("\(serve.emulator.portalURL) (alice) token: renewed, valid until 20"),
                "\(renewed.stdout)")
            #expect(serve.emulator.counters().generateTokenRequests == before + 1)
            let new = try await serve.use.token(serve.emulator.portalURL)
            #expect(new != old)
        }
    }

    /// An app sign-in whose renewal the portal answers with an absurd lifetime (`expires_in:
    /// 1e308`), then with an error: `renew` names the problem in words (no internal text), exits 6
    /// both times, and keeps the stored token.
    @Test func aRenewalAnsweredWithAnAbsurdLifetimeOrAnErrorExits6() async throws {
        try await ServeUse.with { serve in
            let app = try await serve.use.portalAuth(
                [
                    "login", "--portal", serve.emulator.portalURL, "--client-id", "portal-auth-app",
                    "--client-secret-stdin",
                ], stdin: "app-secret-456")
            #expect(app.status == 0, "\(app.stderr)")
            let token = try await serve.use.token(serve.emulator.portalURL)
            serve.emulator.inject(Fault(kind: .lifetimeOutOfRange, pathContains: "oauth2/token", count: 1))
            let absurd = try await serve.use.portalAuth(["renew", "--within", "3d"])
            #expect(absurd.status == 6, "\(absurd.stdout) \(absurd.stderr)")
            #expect(absurd.stdout.contains("'expires_in' is out of range"), "\(absurd.stdout)")
            #expect(!absurd.stdout.contains("Error") && !absurd.stdout.contains("inf"), "\(absurd.stdout)")
            serve.emulator.inject(Fault(kind: .http500, pathContains: "oauth2/token", count: 1))
            let refused = try await serve.use.portalAuth(["renew", "--within", "3d"])
            #expect(refused.status == 6, "\(refused.stdout) \(refused.stderr)")
            #expect(refused.stdout.contains("cannot be renewed"), "\(refused.stdout)")
            #expect(try await serve.use.token(serve.emulator.portalURL) == token)
        }
    }

    @Test func aSignInThatCannotRenewItselfExits6AndIsNamed() async throws {
        try await ServeUse.with { serve in
            let nothing = try await serve.use.portalAuth(["renew"])
            #expect(nothing.status == 0 && nothing.stdout == "nothing is signed in\n", "\(nothing.stdout)")
            try await serve.use.signIn()  // no password kept: renews only on a terminal
            let token = serve.emulator.issueToken(username: "alice", lifetimeSeconds: 3600)
            let stored = try await serve.use.portalAuth(
                ["login", "--url", serve.emulator.standaloneServerURL, "--token-stdin", "--expires-in", "3600"],
                stdin: token)
            #expect(stored.status == 0, "\(stored.stderr)")
            let result = try await serve.use.portalAuth(["renew", "--within", "2h"])
            #expect(result.status == 6, "\(result.stdout) \(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 2, "\(result.stdout)")
            #expect(
                lines.contains {
                    $0.contains("pregenerated-token: expires 20")
                        && $0.hasSuffix("cannot renew itself: sign in again (portal-auth login)")
                },
                "\(result.stdout)")
            #expect(
                lines.contains { $0.hasPrefix("\(serve.emulator.portalURL) (alice) token: expires 20") },
                "\(result.stdout)")
        }
    }

    /// An OAuth sign-in (PKCE, through the scripted browser, with the extra options) in a private
    /// keyring, against an emulator whose refresh tokens live `refreshLifetime` seconds at most;
    /// `body` gets a runner of portal-auth (arguments, stdin) that has no browser.
    func withOAuthSignIn(
        refreshLifetime: Int = Self.refreshLifetime, _ extra: [String] = [],
        _ body: (PortalEmulator, @escaping @Sendable ([String], String?) async throws -> CLIResult) async throws -> Void
    ) async throws {
        try await withEmulator(configuring: { $0.refreshTokenLifetimeSeconds = refreshLifetime }) { emulator in
            try await withPrivateKeyring { keyring in
                let signIn = try await oauthLogin(emulator, extra, environment: keyring.environment)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                #expect(emulator.counters().authorizationCodeGrants == 1)
                // No browser from here on: whatever follows runs without anyone.
                let environment = keyring.environment
                try await body(emulator) { arguments, stdin in
                    try await CLI.portalAuth(arguments, emulator: emulator, stdin: stdin, environment: environment)
                }
            }
        }
    }

    /// Two days: a refresh token that ends within a three-day window, more than a day away.
    static let refreshLifetime = 2 * 86_400

    @Test func twoRenewsAtOnceExchangeARefreshTokenEndingWithinADayOnce() async throws {
        // Signed in for 10 hours; the portal's exchange gives a refresh token of two weeks.
        try await withOAuthSignIn(refreshLifetime: 14 * 86_400, ["--expiration", "10h"]) { emulator, portalAuth in
            let name = "\(emulator.portalURL) (alice) oauth-user"
            let runs = try await withThrowingTaskGroup(of: CLIResult.self) { group in
                for _ in 0..<2 { group.addTask { try await portalAuth(["renew", "--within", "1d"], nil) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for run in runs {
                #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
                #expect(
                    run.stdout.hasPrefix("\(name): renewed, valid until 20")
                        || run.stdout.hasSuffix(", nothing to do\n"), "\(run.stdout)")
            }
            #expect(emulator.counters().exchangeRefreshTokenGrants == 1)
            // The new refresh token lives two weeks: the next run leaves it alone.
            let again = try await portalAuth(["renew", "--within", "1d"], nil)
            #expect(again.status == 0 && again.stdout.hasSuffix(", nothing to do\n"), "\(again.stdout)")
            #expect(emulator.counters().exchangeRefreshTokenGrants == 1)
            let fortnight = try #require(
                again.stdout.firstMatch(of: /valid until (\S+),/).flatMap { try? Date($0.output.1, strategy: .iso8601) }
            )
            #expect(fortnight > Date().addingTimeInterval(13 * 86_400), "\(again.stdout)")
        }
    }

    @Test func anOAuthRefreshTokenEndingWithinTheWindowIsExchangedAndLeftAloneOutsideIt() async throws {
        try await withOAuthSignIn { emulator, portalAuth in
            let name = "\(emulator.portalURL) (alice) oauth-user"
            // The refresh token ends in two days: outside a one-hour window nothing is contacted.
            let before = emulator.counters()
            let early = try await portalAuth(["renew", "--within", "1h"], nil)
            #expect(early.status == 0, "\(early.stderr)")
            #expect(early.stdout.hasPrefix("\(name): valid until 20"), "\(early.stdout)")
            #expect(early.stdout.hasSuffix(", nothing to do\n"), "\(early.stdout)")
            #expect(emulator.counters().requests == before.requests)
            // A day and a half later (by the portal's clock) it ends within a three-day window, though
            // more than a day away by the stored expiry: exchanged for a new one, once.
            emulator.clock.advance(by: .seconds(Self.refreshLifetime * 3 / 4))
            let renewed = try await portalAuth(["renew", "--within", "3d"], nil)
            #expect(renewed.status == 0, "\(renewed.stdout) \(renewed.stderr)")
            #expect(renewed.stdout.hasPrefix("\(name): renewed, valid until 20"), "\(renewed.stdout)")
            #expect(renewed.stdout.split(separator: "\n").count == 1, "\(renewed.stdout)")
            #expect(emulator.counters().exchangeRefreshTokenGrants == 1)
            #expect(emulator.counters().refreshTokenGrants == before.refreshTokenGrants)
            // Past the old refresh token's end, the access token long expired: a request renews it with
            // the new refresh token, without anyone.
            emulator.clock.advance(by: .seconds(Self.refreshLifetime / 2))
            let request = try await portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/community/self?f=json"], nil)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("\"username\" : \"alice\""), "\(request.stdout)")
            let after = emulator.counters()
            #expect(after.refreshTokenGrants == before.refreshTokenGrants + 1)
            #expect(after.exchangeRefreshTokenGrants == 1 && after.authorizationCodeGrants == 1)
        }
    }

    @Test func aPregeneratedTokenWithinTheWindowFailsTheRunBesideAnOAuthSignInItRenews() async throws {
        try await withOAuthSignIn { emulator, portalAuth in
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 3600)
            let stored = try await portalAuth(
                ["login", "--url", emulator.standaloneServerURL, "--token-stdin", "--expires-in", "3600"], token)
            #expect(stored.status == 0, "\(stored.stderr)")
            let result = try await portalAuth(["renew", "--within", "3d"], nil)
            #expect(result.status == 6, "\(result.stdout) \(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 2, "\(result.stdout)")
            #expect(
                lines.contains { $0.hasPrefix("\(emulator.portalURL) (alice) oauth-user: renewed, valid until 20") },
                "\(result.stdout)")
            #expect(
                lines.contains {
                    $0.hasPrefix("\(emulator.standaloneServerURL) pregenerated-token: expires 20")
                        && $0.hasSuffix("cannot renew itself: sign in again (portal-auth login)")
                }, "\(result.stdout)")
            #expect(emulator.counters().exchangeRefreshTokenGrants == 1)
            // status --check exits the same way and names the same token.
            let check = try await portalAuth(["status", "--check", "--within", "3d"], nil)
            #expect(check.status == 6, "\(check.stdout) \(check.stderr)")
            #expect(
                check.stderr.contains("pregenerated-token for \(emulator.standaloneServerURL) expires 20"),
                "\(check.stderr)")
        }
    }

    /// docs/unattended.md's recipes that no marked block runs: the command of each crontab line
    /// runs as printed (beside a password sign-in whose password is kept, which it renews), and
    /// the systemctl lines name the package's units (which `SystemdUnitsTests` verifies), whose
    /// service runs the crontab's renew command.
    @Test func theGuidesCronAndTimerRecipesRunAsPrinted() async throws {
        let text = try String(
            contentsOf: DocsExamplesTests.root.appendingPathComponent("docs/unattended.md"), encoding: .utf8)
        let lines = Self.blocks("crontab", in: text).flatMap { $0.split(separator: "\n").map(String.init) }
        let commands = lines.compactMap { try? /^(?:\S+\s+){5}(.+)$/.wholeMatch(in: $0)?.output.1 }.map(String.init)
        #expect(commands.count == lines.filter { !$0.contains("=") }.count, "\(lines)")
        #expect(commands.contains("portal-auth renew"), "\(commands)")
        try await ServeUse.with { serve in
            try await serve.use.signIn(["--remember-password"])
            serve.emulator.clock.advance(by: .seconds(1800))
            let before = serve.emulator.counters().generateTokenRequests
            for command in Set(commands) {
                let result = try await serve.use.bash(command)
                #expect(result.status == 0, "\(command): \(result.stdout) \(result.stderr)")
            }
            #expect(serve.emulator.counters().generateTokenRequests == before + 1)
        }
        let systemctl = try #require(Self.blocks("sh", in: text).first { $0.contains("systemctl --user") })
        let units = Set(systemctl.matches(of: /portal-auth-[a-z-]+\.(?:timer|service)/).map { String($0.output) })
        #expect(units == ["portal-auth-renew.timer", "portal-auth-renew.service"], "\(systemctl)")
        let folder = DocsExamplesTests.root.appendingPathComponent("debian/systemd")
        for unit in units {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(unit).path), "\(unit)")
        }
        let service = try String(
            contentsOf: folder.appendingPathComponent("portal-auth-renew.service"), encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/bin/portal-auth renew\n"), "\(service)")
    }

    /// The code blocks of `language` in a Markdown text.
    static func blocks(_ language: String, in text: String) -> [String] {
        text.components(separatedBy: "\n```\(language)\n").dropFirst().compactMap {
            $0.components(separatedBy: "\n```\n").first
        }
    }
}
