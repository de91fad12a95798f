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
}
