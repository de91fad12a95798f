import Foundation
import PortalAuth
import PortalAuthEnvironment
import PortalEmulator
import TestSupport
import Testing

/// The library's environment source (`PortalAuthEnvironment`), as a Swift program uses it: read
/// the variables, hand them to a manager whose store is memory, and ask which URLs are theirs.
@Suite struct EnvironmentCredentialsTests {
    /// A manager for the environment `variables` make at `emulator`'s portal, as the CLI and
    /// `serve` build one (the handler and the renewal of the environment, a store in memory).
    static func environmentManager(
        _ emulator: PortalEmulator, _ variables: [String: String]
    ) throws -> (EnvironmentCredentials, AuthenticationManager, CurlTransport) {
        let lookup = variables.merging(["ARCGIS_HOST": emulator.portalURL]) { $1 }
        let environment = try #require(
            try EnvironmentCredentials.read(from: EnvironmentSecretResolver { lookup[$0] }))
        let transport = CurlTransport(
            configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30))
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
        manager.register(EnvironmentSignInHandler(credentials: environment))
        manager.setUnattendedRenewal(EnvironmentRenewal(credentials: environment))
        return (environment, manager, transport)
    }

    @Test func aPasswordCoversThePortalAndTheServersItListsAndNoServerByItsOwnClaim() async throws {
        try await withEmulator { emulator in
            let (environment, manager, transport) = try Self.environmentManager(
                emulator, ["ARCGIS_USER": "alice", "ARCGIS_PASSWORD": "alice-pass-123"])
            try await environment.present(in: manager, transport: transport)
            let layer = "/rest/services/Parcels/FeatureServer/0/query"
            // A standalone server does not name the portal: no sign-in to answer for it.
            #expect(try await !environment.covers(URL(string: emulator.standaloneServerURL + layer)!, in: manager))
            #expect(emulator.counters().generateTokenRequests == 0)
            #expect(
                try await environment.covers(
                    URL(string: emulator.portalURL + "/sharing/rest/portals/self")!, in: manager))
            #expect(emulator.counters().generateTokenRequests == 0)
            // The claimant names the portal as its owner, which is no claim: the portal's list decides.
            #expect(try await !environment.covers(URL(string: emulator.claimantServerURL + layer)!, in: manager))
            #expect(emulator.counters().generateTokenRequests == 1)
            #expect(try await environment.covers(URL(string: emulator.serverURL + layer)!, in: manager))
            #expect(
                try await !environment.covers(
                    URL(string: "http://" + emulator.serverURL.dropFirst(8) + layer)!, in: manager))
            let response = try await manager.send(
                ArcGISRequest(url: URL(string: emulator.serverURL + layer)!, parameters: [("where", "1=1")]))
            #expect(response.http.status == 200)
            #expect(emulator.counters().tokensSentToClaimant == 0)
        }
    }

    @Test func anAPIKeyCoversItsOwnScopeOnly() async throws {
        let key = APIKeyManagerTests.everything
        try await withEmulator(configuring: { $0.apiKeys = [key] }) { emulator in
            let (environment, manager, transport) = try Self.environmentManager(emulator, ["ARCGIS_API_KEY": key.key])
            try await environment.present(in: manager, transport: transport)
            #expect(manager.apiKeySource != nil)
            #expect(
                try await environment.covers(
                    URL(string: emulator.portalURL + "/sharing/rest/portals/self")!, in: manager))
            let layer = URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0")!
            #expect(try await !environment.covers(layer, in: manager))
            // Presenting a key signs nothing in.
            try await environment.signIn(in: manager)
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    @Test func aRefusedKeyNamesTheVariableToFix() async throws {
        try await withEmulator { emulator in
            let (environment, manager, transport) = try Self.environmentManager(
                emulator, ["ARCGIS_API_KEY": "not-a-key"])
            do {
                try await environment.present(in: manager, transport: transport)
                Issue.record("a refused key was presented")
            } catch let error as PortalAuthError {
                #expect(error.remedy == .fixEnvironment(variables: ["ARCGIS_API_KEY"]), "\(error)")
            }
        }
    }
}
