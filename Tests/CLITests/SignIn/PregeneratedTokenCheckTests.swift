import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `login --token-stdin` stores a token only once its server accepted it: a mistyped, expired or
/// revoked token never replaces a working credential (nor removes its server tokens).
@Suite struct PregeneratedTokenCheckTests {
    @Test func aRefusedPregeneratedTokenLeavesTheStoreAsItWas() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                func run(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
                    try await CLI.portalAuth(arguments, emulator: emulator, stdin: stdin, environment: env)
                }
                let portal = emulator.portalURL
                let layer = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0"
                let signIn = try await run(
                    ["login", "--portal", portal, "--username", "alice", "--password-stdin"], stdin: alicePassword)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                let portalToken = try await run(["token", portal]).stdout
                let serverToken = try await run(["token", layer]).stdout
                #expect(!portalToken.isEmpty && !serverToken.isEmpty)

                let expired = emulator.issueToken(username: "bob", lifetimeSeconds: 3600)
                emulator.expireAllTokens()
                for token in ["mistyped-token", expired] {
                    let wrong = try await run(["login", "--url", portal, "--token-stdin"], stdin: token)
                    #expect(wrong.status != 0 && wrong.oneLineError, "\(wrong.status): \(wrong.stderr)")
                    #expect(wrong.stderr.contains("refused the token"), "\(wrong.stderr)")
                    #expect(!wrong.stderr.contains(token))
                }
                // alice's sign-in and server token are where they were (as stored: nothing renewed them).
                #expect(try await run(["token", portal]).stdout == portalToken)
                #expect(try await run(["token", layer]).stdout == serverToken)
                #expect(try await run(["status"]).stdout.contains("alice"))

                // A token the portal accepts replaces alice's.
                let bobs = emulator.issueToken(username: "bob", lifetimeSeconds: 3600)
                let right = try await run(["login", "--url", portal, "--token-stdin"], stdin: bobs)
                #expect(right.status == 0, "\(right.stderr)")
                #expect(try await run(["token", portal]).stdout == bobs + "\n")
            }
        }
    }
}
