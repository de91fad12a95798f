import Foundation
import PortalAuth
import PortalEmulator
import Testing

// The minimal plugin of the DocC article (Sources/PortalAuth/PortalAuth.docc/Architecture.md),
// compiled and run: keep the two in step.

/// A token for one server context, handed in by the program.
struct VaultTokenCredential: ArcGISCredential, Codable {
    static let kind = "vault-token"
    let serverContext: ServerContext
    let tokenInfo: TokenInfo
    let username: String?
}

/// Answers ArcGIS challenges for `portal` with the token `fetch` returns.
struct VaultTokenHandler: AuthenticationChallengeHandler {
    let portal: ServerContext
    let fetch: @Sendable () async throws -> String

    var arcGISCredentialTypes: [any ArcGISCredential.Type] { [VaultTokenCredential.self] }

    func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .arcGIS(let arcGIS) = challenge else { return false }
        return arcGIS.serverContext == portal
    }

    func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        let token = TokenInfo(accessToken: try await fetch(), expirationDate: nil, isSSLRequired: true)
        let credential = VaultTokenCredential(serverContext: portal, tokenInfo: token, username: nil)
        return .continueWithCredential(.arcGIS(credential))
    }
}

@Suite struct MinimalPluginTests {
    @Test("the article's minimal plugin answers the portal's challenge with the vault's token, once")
    func vaultTokenPluginSignsIn() async throws {
        try await Fixture.with { f in
            // A token the program already holds: here, one the token plugin got from the portal.
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let held = try #require(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext))
            let token = held.tokenInfo.accessToken
            let fetches = Locked(0)

            let transport = CurlTransport(
                configuration: TransportConfiguration(caBundlePath: f.emulator.caCertificatePath, timeout: 30))
            let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
            manager.register(
                VaultTokenHandler(portal: f.portalContext) {
                    fetches.withLock { $0 += 1 }
                    return token
                })
            let me = try await manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(me.json?["username"]?.stringValue == "alice")
            let again = try await manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(again.json?["username"]?.stringValue == "alice")
            #expect(fetches.withLock { $0 } == 1)
            let stored = try await manager.arcGISCredentialStore.credential(for: f.portalContext)
            #expect(stored is VaultTokenCredential)
        }
    }
}
