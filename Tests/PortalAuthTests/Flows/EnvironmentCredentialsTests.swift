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
    ) throws -> (EnvironmentCredentials, AuthenticationManager) {
        let lookup = variables.merging(["ARCGIS_HOST": emulator.portalURL]) { $1 }
        let environment = try #require(
            try EnvironmentCredentials.read(from: EnvironmentSecretResolver { lookup[$0] }))
        let transport = CurlTransport(
            configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath, timeout: 30))
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
        manager.register(EnvironmentSignInHandler(credentials: environment))
        manager.setUnattendedRenewal(EnvironmentRenewal(credentials: environment))
        return (environment, manager)
    }

    /// The paths of `emulator`'s standalone and claimant servers' `rest/info`, and how often each was read.
    static func infoReads(_ emulator: PortalEmulator) -> [Int] {
        let counters = emulator.counters()
        return [emulator.standaloneServerURL, emulator.claimantServerURL].map {
            counters.requestsByPath[URL(string: $0 + "/rest/info")!.path] ?? 0
        }
    }

    @Test func aProxysReadingIsThePortalsListAndContactsNoOtherHost() async throws {
        try await withEmulator { emulator in
            let (environment, manager) = try Self.environmentManager(
                emulator, ["ARCGIS_USER": "alice", "ARCGIS_PASSWORD": "alice-pass-123"])
            try await environment.present(in: manager)
            try await environment.signIn(in: manager)
            #expect(emulator.counters().generateTokenRequests == 1)
            func answers(_ url: String) async throws -> Bool {
                try await environment.answers(for: URL(string: url)!, in: manager, askedBy: .proxy)
            }
            let layer = "/rest/services/Parcels/FeatureServer/0/query"
            #expect(try await answers(emulator.portalURL + "/sharing/rest/portals/self"))
            #expect(try await answers(emulator.serverURL + layer))
            // The claimant names the portal as its owner, which is no claim: the portal's list decides.
            #expect(try await !answers(emulator.claimantServerURL + layer))
            #expect(try await !answers(emulator.standaloneServerURL + layer))
            #expect(try await !answers("http://" + emulator.serverURL.dropFirst("https://".count) + layer))
            #expect(Self.infoReads(emulator) == [0, 0])
            #expect(emulator.counters().generateTokenRequests == 1)
        }
    }

    @Test func aCommandsReadingAsksTheServerAndSignsInForNoServerThatDoesNotNameThePortal() async throws {
        try await withEmulator { emulator in
            let (environment, manager) = try Self.environmentManager(
                emulator, ["ARCGIS_USER": "alice", "ARCGIS_PASSWORD": "alice-pass-123"])
            try await environment.present(in: manager)
            func answers(_ url: String) async throws -> Bool {
                try await environment.answers(for: URL(string: url)!, in: manager, askedBy: .program)
            }
            let layer = "/rest/services/Parcels/FeatureServer/0/query"
            // A standalone server does not name the portal: no sign-in to answer for it.
            #expect(try await !answers(emulator.standaloneServerURL + layer))
            #expect(try await answers(emulator.portalURL + "/sharing/rest/portals/self"))
            #expect(try await answers(emulator.serverURL + layer))
            #expect(emulator.counters().generateTokenRequests == 0)
            // The claimant names the portal: the environment's manager answers, and sends it nothing,
            // since the portal does not vouch for it.
            #expect(try await answers(emulator.claimantServerURL + layer))
            await #expect(throws: PortalAuthError.self) {
                try await manager.send(
                    ArcGISRequest(url: URL(string: emulator.claimantServerURL + layer)!, parameters: [("where", "1=1")])
                )
            }
            #expect(emulator.counters().tokensSentToClaimant == 0)
            let response = try await manager.send(
                ArcGISRequest(url: URL(string: emulator.serverURL + layer)!, parameters: [("where", "1=1")]))
            #expect(response.http.status == 200)
        }
    }

    @Test func anAPIKeyAnswersForItsOwnScopeOnly() async throws {
        let key = APIKeyManagerTests.everything
        try await withEmulator(configuring: { $0.apiKeys = [key] }) { emulator in
            let (environment, manager) = try Self.environmentManager(emulator, ["ARCGIS_API_KEY": key.key])
            try await environment.present(in: manager)
            #expect(manager.apiKeySource != nil)
            for caller in [CredentialSourceCaller.proxy, .program] {
                func answers(_ url: String) async throws -> Bool {
                    try await environment.answers(for: URL(string: url)!, in: manager, askedBy: caller)
                }
                #expect(try await answers(emulator.portalURL + "/sharing/rest/portals/self"))
                // A federated server is outside a key's scope, whatever it says of itself.
                #expect(try await !answers(emulator.serverURL + "/rest/services/Parcels/FeatureServer/0"))
            }
            // Presenting a key signs nothing in.
            try await environment.signIn(in: manager)
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    @Test func aRefusedKeyNamesTheVariableToFix() async throws {
        try await withEmulator { emulator in
            let (environment, manager) = try Self.environmentManager(emulator, ["ARCGIS_API_KEY": "not-a-key"])
            do {
                try await environment.present(in: manager)
                Issue.record("a refused key was presented")
            } catch let error as PortalAuthError {
                #expect(error.remedy == .fixEnvironment(variables: ["ARCGIS_API_KEY"]), "\(error)")
            }
        }
    }
}
