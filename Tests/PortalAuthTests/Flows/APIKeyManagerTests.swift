import Foundation
import PortalEmulator
import TestSupport
import Testing

@testable import PortalAuth

/// The manager's API key (`apiKey`, as `ArcGISEnvironment.apiKey`) against portal-emulator: it goes
/// to the portal and the services of its `helperServices`, never anywhere else; a user credential
/// for the same context wins; a refused key is an error that says so.
@Suite struct APIKeyManagerTests {
    static let keyValue = "AAPTmanagerTestKeyWithEveryPrivilege000000001xxxxxxxxx"
    static let everything = EmulatorAPIKey(
        key: keyValue, name: "everything", lifetimeSeconds: 86_400, privileges: EmulatorAPIKey.allPrivileges)

    /// An emulator with the key, an http listener and the application proxy, and a manager of
    /// its own that holds the key (and has no plugin: nothing signs in behind the test's back).
    func withKey(
        plugins: Bool = false, _ body: (Fixture, APIKeyCredential) async throws -> Void
    ) async throws {
        var configuration = EmulatorConfiguration.default
        configuration.apiKeys = [Self.everything]
        configuration.httpPort = 0
        configuration.proxyPort = 0
        try await Fixture.with(configuration) { f in
            let manager =
                plugins
                ? f.manager
                : AuthenticationManager(backend: MemoryCredentialBackend(), transport: f.transport)
            let key = try await APIKeyCredential.credential(
                apiKey: Self.keyValue, portalURL: f.portal, services: manager.services)
            manager.apiKey = key
            try await body(
                Fixture(emulator: f.emulator, manager: manager, provider: f.provider, transport: f.transport), key)
        }
    }

    /// The origin (`https://host:port`) of a URL string.
    static func origin(_ url: String) -> String {
        let u = URL(string: url)!
        return "https://\(u.host()!):\(u.port!)"
    }

    static func carriesKey(_ request: TransportRequest) -> Bool {
        request.url.absoluteString.contains(keyValue)
            || String(decoding: request.body ?? [], as: UTF8.self).contains(keyValue)
            || request.headers.contains { $0.value.contains(keyValue) }
    }

    func get(_ f: Fixture, _ url: String) async throws -> ArcGISResponse {
        try await f.manager.send(ArcGISRequest(url: URL(string: url)!))
    }

    @Test func theKeyReachesThePortalAndItsHelperServicesAndNoOtherHost() async throws {
        try await withKey { f, key in
            let e = f.emulator
            let geocode = try #require(e.geocodeServiceURL)
            let route = try #require(e.routeServiceURL)
            #expect(key.serviceContexts.map(\.url).contains(geocode))
            #expect(key.serviceContexts.map(\.url).contains(route))
            // Inside the scope: answered.
            let found = try await get(f, geocode + "/findAddressCandidates?SingleLine=380%20New%20York%20St")
            #expect(found.json?["candidates"]?[0]?["score"]?.doubleValue == 100)
            _ = try await get(f, route + "/solve?stops=-117.1957,34.0561;-117.2,34.06")
            _ = try await get(f, e.portalURL + "/sharing/rest/search?q=parcels")
            // Outside: the federated, standalone and claimant servers (the portal's host and port),
            // the application proxy's port, plain http to the portal's path.
            let httpPort = try #require(e.httpPort)
            let outside = [
                e.serverURL + "/rest/services/Parcels/FeatureServer/0/query?where=1=1",
                e.standaloneServerURL + "/rest/services/Parcels/FeatureServer/0/query?where=1=1",
                e.claimantServerURL + "/rest/services/Parcels/FeatureServer/0/query?where=1=1",
                try #require(e.proxyBaseURL) + "/portal/sharing/rest/search?q=parcels",
                "http://127.0.0.1:\(httpPort)/portal/sharing/rest/search?q=parcels",
            ]
            for url in outside { _ = try? await get(f, url) }
            let counters = e.counters()
            let reached = Set(counters.apiKeyRequestsByOrigin.keys)
            #expect(reached == [Self.origin(e.portalURL), Self.origin(geocode)])
            #expect(counters.tokensSentToClaimant == 0)
            // Every request that carried the key went inside its scope, the outside ones went without.
            let carrying = f.transport.requests.filter(Self.carriesKey)
            #expect(carrying.count == 4)  // portals/self at sign-in, geocode, route, search
            #expect(carrying.allSatisfy { key.applies(to: $0.url) })
            for url in outside {
                let sent = f.transport.requests.filter { $0.url.absoluteString.hasPrefix(url.prefix(40)) }
                #expect(!sent.isEmpty, "\(url) was not sent")
                #expect(!sent.contains(where: Self.carriesKey), "\(url)")
            }
        }
    }

    /// `apiKeys`: several keys, each only inside its own scope; requests for different scopes at
    /// once each take their own URL's key (serve sets the list of stored keys once, not a key per
    /// request: two portals' requests at once never saw each other's key, or none).
    @Test func eachKeyOfTheListGoesOnlyInsideItsOwnScope() async throws {
        try await withKey { f, key in
            let foreign = try APIKeyCredential(
                apiKey: "AAPTforeignPortalKey0000000000000000000000000000000001",
                portalURL: URL(string: "https://foreign.invalid/portal")!)
            f.manager.apiKey = nil
            f.manager.apiKeys = [foreign, key]
            let geocode = try #require(f.emulator.geocodeServiceURL)
            let urls = (0..<10).flatMap { index in
                [
                    geocode + "/findAddressCandidates?SingleLine=\(index)",
                    f.emulator.portalURL + "/sharing/rest/search?q=\(index)",
                ]
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for url in urls { group.addTask { _ = try await get(f, url) } }
                try await group.waitForAll()
            }
            let paths = [geocode + "/findAddressCandidates", f.emulator.portalURL + "/sharing/rest/search"]
            let answered = f.transport.requests.filter { request in
                paths.contains { request.url.absoluteString.hasPrefix($0) }
            }
            #expect(answered.count == urls.count && answered.allSatisfy(Self.carriesKey))
            let foreignValue = foreign.tokenInfo.accessToken
            #expect(
                !f.transport.requests.contains { request in
                    request.url.absoluteString.contains(foreignValue)
                        || request.headers.contains { $0.value.contains(foreignValue) }
                })
            // The foreign portal's URL gets the foreign key, decided without contacting anything.
            let before = f.transport.requests.count
            let chosen = try await f.manager.scopedCredential(
                for: URL(string: "https://foreign.invalid/portal/sharing/rest/portals/self")!, interactive: false)
            #expect(chosen.credential.tokenInfo.accessToken == foreign.tokenInfo.accessToken)
            #expect(f.transport.requests.count == before)
            // A URL inside neither scope gets no key.
            #expect(
                try await f.manager.isWithinKnownScope(URL(string: f.emulator.serverURL + "/rest/services")!) == false)
        }
    }

    @Test func aUserCredentialForTheSameContextWins() async throws {
        try await withKey(plugins: true) { f, key in
            // alice signs in to the portal (the plugin answers the challenge)...
            f.manager.apiKey = nil
            let me = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(me.json?["username"]?.stringValue == "alice")
            f.manager.apiKey = key
            let portalOrigin = Self.origin(f.emulator.portalURL)
            let before = f.emulator.counters().apiKeyRequestsByOrigin[portalOrigin]?["everything"] ?? 0
            // ...so the portal gets her token, and the location services (no user credential) the key.
            _ = try await get(f, f.emulator.portalURL + "/sharing/rest/search?q=parcels")
            #expect(f.emulator.counters().apiKeyRequestsByOrigin[portalOrigin]?["everything"] ?? 0 == before)
            let portalCredential = try await f.manager.credential(for: f.portal, interactive: false)
            #expect(!(portalCredential is APIKeyCredential))
            let geocode = try #require(f.emulator.geocodeServiceURL)
            let geocodeCredential = try await f.manager.credential(for: URL(string: geocode)!, interactive: false)
            #expect(geocodeCredential.tokenInfo.accessToken == Self.keyValue)
        }
    }

    @Test func anExpiredOrInvalidatedKeyIsAnErrorThatSaysSo() async throws {
        try await withKey { f, key in
            let geocode = try #require(f.emulator.geocodeServiceURL) + "/findAddressCandidates?SingleLine=x"
            f.emulator.clock.advance(by: .seconds(86_401))
            let error = await expectPortalAuthError(.credentialExpired) { try await get(f, geocode) }
            #expect(error?.message.contains("expired or was invalidated") == true)
            #expect(error?.message.contains(Self.keyValue) == false)
            #expect(error?.remedy == .storeAPIKey(portal: key.portal))
            // Sent once: a refused key is not retried, renewed or replaced by a sign-in.
            #expect(f.emulator.counters().apiKeyRequestsByOrigin[Self.origin(geocode)]?["everything"] == 1)
        }
    }

    @Test func aKeyExpiredByThisClockIsNotSent() async throws {
        try await withKey { f, key in
            f.manager.apiKey = try APIKeyCredential(
                apiKey: Self.keyValue, portalURL: f.portal, expirationDate: Date(timeIntervalSinceNow: -60),
                serviceURLs: key.serviceContexts.map { URL(string: $0.url)! })
            let geocode = try #require(f.emulator.geocodeServiceURL) + "/findAddressCandidates?SingleLine=x"
            let error = await expectPortalAuthError(.credentialExpired) { try await get(f, geocode) }
            #expect(error?.remedy == .storeAPIKey(portal: key.portal))
            #expect(f.emulator.counters().apiKeyRequestsByOrigin[Self.origin(geocode)] == nil)
        }
    }

    @Test func storingANewKeyForThePortalReplacesTheOldOneInOneItem() async throws {
        try await withKey { f, key in
            let store = f.manager.arcGISCredentialStore
            try await store.add(key)
            let second = try APIKeyCredential(apiKey: "AAPTsecondKey", portalURL: f.portal)
            try await store.add(second)
            let stored = try await store.credentials(in: key.scope, reload: true)
            #expect(stored.count == 1)
            #expect(stored.first?.tokenInfo.accessToken == "AAPTsecondKey")
            #expect(try await store.summaries().filter { $0.kind == APIKeyCredential.kind }.count == 1)
        }
    }
}
