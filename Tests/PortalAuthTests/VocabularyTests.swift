import Foundation
import PortalAuthIAP
import PortalAuthOAuthUser
import PortalEmulator
import Testing

@testable import PortalAuth

/// The ArcGIS Maps SDK's vocabulary (#13): `signOut()` revokes, invalidates IAP and clears (the stored
/// credentials of the previous version are read back in the unit tier: StoredVocabularyTests).
@Suite struct VocabularyTests {
    @Test("signOut() revokes the OAuth tokens, reports it, and clears the stores")
    func signOutRevokesAndClears() async throws {
        try await OAuthFixture.with { f in
            let seeded = f.seededCredential(accessLifetime: 1800, refreshLifetime: 14 * 24 * 3600)
            try await f.manager.arcGISCredentialStore.add(seeded)
            let report = try await f.manager.signOut()
            #expect(
                report.revocations
                    == [RevocationReport(serverContext: f.portalContext, username: "alice", outcome: .revoked)])
            #expect(report.invalidatedIAPCredentials.isEmpty)
            #expect(report.removedCredentialCount == 1)
            #expect(f.emulator.isRevoked(seeded.refreshToken))
            #expect(f.emulator.isRevoked(seeded.tokenInfo.accessToken))
            #expect(try await f.manager.arcGISCredentialStore.summaries().isEmpty)
        }
    }

    @Test("signOut() shows the IAP sign-out page and removes the IAP credential with the portal's")
    func signOutInvalidatesIAPCredentials() async throws {
        try await IAPFixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.proxiedCommunitySelf))
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).count == 1)
            let agent = PresentedPages()
            let report = try await f.manager.signOut(userAgent: agent)
            #expect(report.invalidatedIAPCredentials.count == 1)
            #expect(agent.pages == [f.configuration.logoutURL])
            // The Entra tokens cannot be revoked: reported so, with where to sign out.
            #expect(report.revocations.contains { if case .notRevocable = $0.outcome { true } else { false } })
            // The portal's token credential went with the stores.
            #expect(report.removedCredentialCount >= 1)
            #expect(try await f.manager.iapCredentialStore.allCredentials(reload: true).isEmpty)
            #expect(try await f.manager.arcGISCredentialStore.summaries().isEmpty)
        }
    }
}
