import Foundation
import PortalEmulator
import TestSupport
import Testing

/// A server that names the portal as its owner and a token service of its choosing on the
/// portal's host gets nothing, and no password goes where it says: not the portal's token to
/// exchange, not the remembered password after the token expired.
@Suite struct TokenServiceCLITests {
    @Test func aClaimantNamingATokenServiceGetsNeitherTheTokenNorTheRememberedPassword() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let signIn = try await login(emulator, extra: ["--remember-password"], environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                let landings = ["/portal/sharing/proxy", "/portal/sharing/collect/generateToken", "/collect"]
                // With a live portal token (an exchange), then once it expired (the remembered password).
                for (round, claimant) in ["/claimant-proxy", "/claimant-path"].enumerated() {
                    if round == 1 {
                        try await RememberedPasswordCLITests.expireStoredTokenCredential(
                            emulator.portalURL, environment: env)
                        emulator.clock.advance(by: .seconds(7200))
                    }
                    let server = emulator.baseURL + claimant
                    let layer = server + "/rest/services/Parcels/FeatureServer/0"
                    for command in [["token", layer], ["request", layer + "/query"]] {
                        let r = try await CLI.portalAuth(command, emulator: emulator, environment: env)
                        #expect(r.status == 3, "\(command): \(r.stderr)")
                        #expect(r.stdout.isEmpty)
                        #expect(r.oneLineError)
                        #expect(r.stderr.contains(server) && r.stderr.contains("does not list"), "\(r.stderr)")
                        #expect(r.stderr.contains("administrator of \(emulator.portalURL)"), "\(r.stderr)")
                        #expect(!r.stderr.contains("login --portal \(server)"), "\(r.stderr)")
                        #expect(!r.stderr.contains(alicePassword))
                    }
                    let counters = emulator.counters()
                    for landing in landings { #expect(counters.requestsByPath[landing] == nil, "\(landing)") }
                    #expect(counters.tokensSentToClaimant == 0)
                    #expect(counters.serverTokenRequests == 0)
                    #expect(counters.generateTokenRequests == 1)  // the sign-in's only
                    #expect(!(try await CLI.keyringItems(server: server, environment: env)).contains("label"))
                }
            }
        }
    }
}
