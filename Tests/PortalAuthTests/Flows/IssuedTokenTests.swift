import Foundation
import PortalAuth
import PortalAuthToken
import PortalEmulator
import TestSupport
import Testing

/// A token service that answers with what the real one (portal-emulator) issued, then changes
/// the answer as a faulty or hostile server would: a token with CR, LF or NUL in it, or one that
/// has already expired. Only generateToken answers that `matches` are changed.
final class AlteredTokenService: HTTPTransport {
    let inner: any HTTPTransport
    let matches: @Sendable (String) -> Bool
    let token: @Sendable (String) -> String
    let expires: @Sendable (Double) -> Double
    init(
        _ inner: any HTTPTransport, matches: @escaping @Sendable (String) -> Bool = { _ in true },
        token: @escaping @Sendable (String) -> String = { $0 }, expires: @escaping @Sendable (Double) -> Double = { $0 }
    ) {
        self.inner = inner
        self.matches = matches
        self.token = token
        self.expires = expires
    }
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        var response = try await inner.send(request, options: options)
        let form = String(decoding: request.body ?? [], as: UTF8.self)
        guard request.url.path.hasSuffix("/generateToken"), matches(form),
            var object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let issued = object["token"] as? String, let expiry = object["expires"] as? Double
        else { return response }
        object["token"] = token(issued)
        object["expires"] = expires(expiry)
        response.body = Array(try JSONSerialization.data(withJSONObject: object))
        return response
    }
}

@Suite struct IssuedTokenTests {
    /// A manager whose token service answers are altered; everything else reaches the emulator.
    func alteringManager(
        _ emulator: PortalEmulator, matches: @escaping @Sendable (String) -> Bool = { _ in true },
        token: @escaping @Sendable (String) -> String = { $0 }, expires: @escaping @Sendable (Double) -> Double = { $0 }
    ) -> AuthenticationManager {
        let curl = CurlTransport(configuration: TransportConfiguration(caBundlePath: emulator.caCertificatePath))
        let transport = AlteredTokenService(curl, matches: matches, token: token, expires: expires)
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: transport)
        manager.register(TokenAuthenticationHandler(provider: CountingProvider()))
        return manager
    }

    /// Signs in through a token service whose answer is altered; the error, having checked that
    /// nothing was stored.
    func refusedSignIn(
        token: @escaping @Sendable (String) -> String = { $0 }, expires: @escaping @Sendable (Double) -> Double = { $0 }
    ) async throws -> PortalAuthError? {
        var refused: PortalAuthError?
        try await withEmulator { emulator in
            let manager = alteringManager(emulator, token: token, expires: expires)
            let communitySelf = URL(string: emulator.portalURL + "/sharing/rest/community/self")!
            refused = await expectPortalAuthError(.invalidResponse) {
                try await manager.send(ArcGISRequest(url: communitySelf))
            }
            let stored = try await manager.arcGISCredentialStore.credential(for: communitySelf)
            #expect(stored == nil)
        }
        return refused
    }

    @Test(arguments: ["\r\n", "\n", "\r", "\0"])
    func aTokenWithALineBreakOrNULFromTheServerIsRefusedAndNotStored(_ inserted: String) async throws {
        let error = try await refusedSignIn(token: { $0 + inserted + "X-Injected: 1" })
        #expect(error?.message.contains("control characters") == true)
        #expect(error?.message.contains("X-Injected") == false)
    }

    @Test func aTokenThatExpiredBeforeItArrivedIsAnErrorNotASignIn() async throws {
        let error = try await refusedSignIn(expires: { _ in (Date().timeIntervalSince1970 - 120) * 1000 })
        #expect(error?.message.contains("already expired") == true)
        #expect(error?.message.contains("clock") == true)
        guard case .checkClock? = error?.remedy else {
            Issue.record("the remedy is to check the clocks: \(String(describing: error))")
            return
        }
    }

    @Test func aLifetimeThatIsNotANumberIsRefusedAtSignIn() async throws {
        try await Fixture.with { f in
            f.emulator.inject(Fault(kind: .lifetimeNotANumber, pathContains: "generateToken", count: 1))
            let error = await expectPortalAuthError(.invalidResponse) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            #expect(error?.message.contains("'expires' is not a number") == true, "\(String(describing: error))")
            let stored = try await f.manager.arcGISCredentialStore.credential(for: f.communitySelf)
            #expect(stored == nil)
        }
    }

    @Test func aLifetimeOutOfRangeIsRefusedAtSignInWithItsCode() async throws {
        try await Fixture.with { f in
            f.emulator.inject(Fault(kind: .lifetimeOutOfRange, pathContains: "generateToken", count: 1))
            let error = await expectPortalAuthError(.invalidResponse) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            #expect(error?.message.contains("'expires' is out of range") == true, "\(String(describing: error))")
            let stored = try await f.manager.arcGISCredentialStore.credential(for: f.communitySelf)
            #expect(stored == nil)
        }
    }

    @Test func aLifetimeThatIsNotANumberIsRefusedAtRenewal() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let signedIn = try #require(try await f.manager.arcGISCredentialStore.credential(for: f.communitySelf))
            // The portal refuses the token once; the renewal's answer has no readable lifetime.
            f.emulator.inject(Fault(kind: .rejectAllTokens, pathContains: "community/self", count: 1))
            f.emulator.inject(Fault(kind: .lifetimeNotANumber, pathContains: "generateToken", count: 1))
            _ = await expectPortalAuthError(.invalidResponse) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            let stored = try await f.manager.arcGISCredentialStore.credential(for: f.communitySelf)
            #expect(stored?.tokenInfo.accessToken == signedIn.tokenInfo.accessToken)
            #expect(stored?.tokenInfo.expirationDate != nil)
        }
    }

    @Test func aFederatedServerTokenWithALineFeedIsRefusedAndNotStored() async throws {
        try await withEmulator { emulator in
            // Only the exchange (the form names serverUrl) is altered: the portal sign-in is real.
            let manager = alteringManager(
                emulator, matches: { $0.contains("serverUrl=") }, token: { $0 + "\nX-Injected: 1" })
            let query = URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query")!
            let error = await expectPortalAuthError(.invalidResponse) {
                try await manager.send(
                    ArcGISRequest(url: query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            }
            #expect(error?.message.contains("control characters") == true)
            #expect(emulator.counters().serverTokenRequests == 1)
            let stored = try await manager.arcGISCredentialStore.credential(for: query)
            #expect(stored == nil)
            let portalCredential = try await manager.arcGISCredentialStore.credential(
                for: URL(string: emulator.portalURL)!)
            #expect(portalCredential != nil)
        }
    }

    @Test func aDefaultSignInBindsTheTokenToTheRequestingAddressAndSendsNoReferer() async throws {
        try await Fixture.with { f in try await defaultSignInSendsNoReferer(f) }
    }

    func defaultSignInSendsNoReferer(_ f: Fixture) async throws {
        let response = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
        #expect(response.json?["username"]?.stringValue == "alice")
        let generate = try #require(f.transport.requests.first { $0.url.path.hasSuffix("/generateToken") })
        let form = String(decoding: generate.body ?? [], as: UTF8.self)
        #expect(form.contains("client=requestip") && !form.contains("referer"))
        #expect(f.transport.requests.allSatisfy { request in !request.headers.contains { $0.name == "Referer" } })
        let credential = try #require(try await f.manager.arcGISCredentialStore.credential(for: f.communitySelf))
        #expect(credential.referer == nil)
        // The federated server's token is bound the same way.
        let count = try await f.manager.send(
            ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
        #expect(count.json?["count"]?.doubleValue == 24)
        let exchange = try #require(
            f.transport.requests.first { String(decoding: $0.body ?? [], as: UTF8.self).contains("serverUrl=") })
        #expect(String(decoding: exchange.body ?? [], as: UTF8.self).contains("client=requestip"))
        #expect(f.transport.requests.allSatisfy { request in !request.headers.contains { $0.name == "Referer" } })
    }
}
