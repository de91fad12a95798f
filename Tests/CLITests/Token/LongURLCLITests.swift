import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `token` reads a URL of up to 16 KiB (in time linear in its length) and refuses a longer one.
@Suite struct LongURLCLITests {
    @Test func aLongURLIsAnsweredAndOneOverSixteenKiBIsRefused() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let signIn = try await login(emulator, environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                let portalToken = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: env)
                #expect(portalToken.status == 0, "\(portalToken.stderr)")
                let start = emulator.portalURL + "/sharing/rest/"
                let segments = (16 * 1024 - start.utf8.count) / 2
                let long = start + String(repeating: "a/", count: segments)
                #expect(long.utf8.count <= 16 * 1024 && long.utf8.count > 16 * 1024 - 2)
                let answered = try await CLI.portalAuth(["token", long], emulator: emulator, environment: env)
                #expect(answered.status == 0, "\(answered.stderr)")
                #expect(answered.stdout == portalToken.stdout)
                for tooLong in [long + "bb", start + String(repeating: "a/", count: 32 * 1024)] {
                    for format in ["plain", "json"] {
                        let r = try await CLI.portalAuth(
                            ["token", tooLong, "--format", format], emulator: emulator, environment: env)
                        #expect(r.status == 2, "\(r.stderr)")
                        #expect(r.stdout.isEmpty)
                        #expect(r.oneLineError)
                        #expect(r.stderr.contains("16 KiB"), "\(r.stderr)")
                        #expect(r.stderr.utf8.count < 400)
                    }
                }
            }
        }
    }
}
