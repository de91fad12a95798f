import Foundation
import PortalAuthPregeneratedToken
import PortalEmulator
import Testing

@testable import PortalAuth
@testable import PortalAuthToken

@Suite struct ManagerTests {
    @Test func portalChallengeIsAnsweredByTheTokenPluginAndRetriedOnce() async throws {
        try await Fixture.with { f in
            let response = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(response.json?["username"]?.stringValue == "alice")
            #expect(f.provider.calls == 1)
            #expect(f.emulator.counters().generateTokenRequests == 1)
            let stored = try await f.manager.arcGISCredentialStore.credential(for: f.portalContext)
            #expect(stored is TokenCredential)
            #expect(stored?.username == "alice")
            // The token travels in the header, never in the URL.
            let last = try #require(f.transport.requests.last)
            #expect(last.header("X-Esri-Authorization")?.hasPrefix("Bearer ") == true)
            #expect(!last.url.absoluteString.contains("token="))
            #expect(last.url.absoluteString.contains("f=json"))
        }
    }

    @Test func thousandConcurrentChallengesMakeOneTokenRequest() async throws {
        try await Fixture.with { f in
            let results = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        try await f.manager.send(ArcGISRequest(url: f.communitySelf)).json?["username"]?.stringValue
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(results.count == 1000)
            #expect(results.allSatisfy { $0 == "alice" })
            #expect(f.provider.calls == 1)
            #expect(f.emulator.counters().generateTokenRequests == 1)
        }
    }

    @Test func federatedServerGetsAServerTokenFromThePortalWithoutAskingAgain() async throws {
        try await Fixture.with { f in
            // Sign in to the portal first.
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(f.provider.calls == 1)
            // The federated server's layer: a server token via the portal, no second prompt.
            let response = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "UseType = 'Government'"), ("outFields", "*")]))
            let features = try #require(response.json?["features"]?.arrayValue)
            #expect(!features.isEmpty)
            #expect(features.allSatisfy { $0["attributes"]?["UseType"]?.stringValue == "Government" })
            #expect(f.provider.calls == 1)
            let counters = f.emulator.counters()
            #expect(counters.serverTokenRequests == 1)
            #expect(counters.queriesByTokenKind["server"] == 1)
            #expect(counters.queriesByTokenKind["portal"] == nil)
            // Cached per server: more queries make no more token requests.
            for _ in 0..<3 {
                _ = try await f.manager.send(
                    ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            }
            #expect(f.emulator.counters().serverTokenRequests == 1)
            let serverCredential = try await f.manager.arcGISCredentialStore.credential(
                for: try ServerContext(f.emulator.serverURL))
            #expect(serverCredential is FederatedTokenCredential)
            #expect(serverCredential?.derivedFrom == f.portalContext)
        }
    }

    @Test func thousandConcurrentRequestsToAFederatedServerMakeOnePortalAndOneServerTokenRequest() async throws {
        try await Fixture.with { f in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        _ = try await f.manager.send(
                            ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
                    }
                }
                try await group.waitForAll()
            }
            let counters = f.emulator.counters()
            #expect(f.provider.calls == 1)
            #expect(counters.generateTokenRequests == 1)
            #expect(counters.serverTokenRequests == 1)
            #expect(counters.queriesByTokenKind["server"] == 1000)
        }
    }

    @Test func standaloneServerUsesItsOwnTokenService() async throws {
        try await Fixture.with { f in
            let url = URL(string: f.emulator.standaloneServerURL + "/rest/services/Parcels/FeatureServer/0/query")!
            let response = try await f.manager.send(
                ArcGISRequest(url: url, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect(response.json?["count"]?.doubleValue ?? 0 > 0)
            #expect(f.emulator.counters().standaloneTokenRequests == 1)
            #expect(f.emulator.counters().generateTokenRequests == 0)
            let stored = try await f.manager.arcGISCredentialStore.credential(
                for: try ServerContext(f.emulator.standaloneServerURL))
            #expect(
                (stored as? TokenCredential)?.tokenServiceURL.path().hasSuffix("/standalone/tokens/generateToken")
                    == true)
        }
    }

    @Test func tokenNeverFollowsARedirectToAnotherHost() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let target = "https://localhost:\(f.emulator.port)/emulator/echo"
            let redirect = URL(
                string: f.emulator.portalURL.replacingOccurrences(of: "/portal", with: "") + "/emulator/redirect?to="
                    + FormEncoding.escape(target))!
            // The redirect endpoint is on the same host but outside the portal context: no token there either.
            let response = try await f.manager.send(ArcGISRequest(url: redirect))
            #expect(response.json?["hadToken"]?.boolValue == false)
            #expect(response.json?["host"]?.stringValue?.hasPrefix("localhost") == true)
            #expect(f.emulator.counters().tokenBearingRequestsByHost["localhost"] == nil)
            // Directly to another host name of the same machine: not the credential's context.
            let direct = try await f.manager.send(ArcGISRequest(url: URL(string: target)!))
            #expect(direct.json?["hadToken"]?.boolValue == false)
            #expect(f.emulator.counters().tokenBearingRequestsByHost["localhost"] == nil)
        }
    }

    @Test func portalTokenIsNotSentToTheServerContextOnTheSameHost() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            _ = try await f.manager.send(ArcGISRequest(url: f.layer))
            let toServer = f.transport.requests.filter { $0.url.path().hasPrefix("/server/rest/services") }
            let portalToken = try await f.manager.arcGISCredentialStore.credential(for: f.portalContext)!.tokenInfo
                .accessToken
            #expect(!toServer.isEmpty)
            #expect(toServer.allSatisfy { $0.header("X-Esri-Authorization") != "Bearer " + portalToken })
        }
    }

    @Test func sslTokenIsNeverSentOverPlainHTTP() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.httpPort = 0
        try await Fixture.with(configuration) { f in
            let httpPort = try #require(f.emulator.httpPort)
            let plainPortal = URL(string: "http://127.0.0.1:\(httpPort)/portal")!
            let token = f.emulator.issueToken(username: "alice", lifetimeSeconds: 600, ssl: true)
            let credential = try PregeneratedTokenCredential(
                url: plainPortal, token: token, expiresIn: 600, isSSLRequired: true)
            try await f.manager.arcGISCredentialStore.add(credential)
            let plainURL = URL(string: "http://127.0.0.1:\(httpPort)/portal/sharing/rest/community/self")!
            let error = await expectPortalAuthError(.insecureTransport) {
                try await f.manager.send(ArcGISRequest(url: plainURL))
            }
            #expect(error?.message.contains("https") == true)
            #expect(error?.remedy == .useHTTPS(url: plainURL))
            #expect(error?.message.contains(token) == false)
            #expect(f.emulator.counters().tokenBearingRequestsByHost.values.reduce(0, +) == 0)
        }
    }

    @Test func a498RightAfterAFreshTokenIsAnErrorNotALoop() async throws {
        try await Fixture.with { f in
            f.emulator.inject(
                Fault(kind: .rejectAllTokens, pathContains: "/community/self", count: nil, milliseconds: nil))
            let error = await expectPortalAuthError(.invalidToken) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            if case .arcGIS(let code, _, _, _)? = error?.cause {
                #expect(code == 498)
            } else {
                Issue.record("no ArcGIS cause")
            }
            #expect(error?.remedy == .signIn(.token(f.portalContext, username: "alice")))
            #expect(f.provider.calls == 1)
            #expect(f.emulator.counters().generateTokenRequests == 1)
        }
    }

    @Test func wrongPasswordIsReportedAndNothingIsStored() async throws {
        try await Fixture.with(provider: CountingProvider(password: "wrong")) { f throws in
            let error = await expectPortalAuthError(.authenticationFailed) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            #expect(error?.message.contains("alice") == true)
            #expect(error?.message.contains("wrong") == false)
            #expect(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext) == nil)
        }
    }

    @Test func anExistingCredentialSurvivesAFailedSignIn() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let before = try #require(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext))
            await expectPortalAuthError(.authenticationFailed) {
                try await TokenCredential.credential(
                    for: f.portalContext,
                    tokenServiceURL: URL(string: f.emulator.portalURL + "/sharing/rest/generateToken")!,
                    username: "alice", password: "nope", services: f.manager.services)
            }
            let after = try await f.manager.arcGISCredentialStore.credential(for: f.portalContext, reload: true)
            #expect(after?.tokenInfo == before.tokenInfo)
        }
    }

    @Test(arguments: [Fault.Kind.html, .malformedJSON, .http500])
    func badBodiesAreClearErrors(kind: Fault.Kind) async throws {
        try await Fixture.with { f in
            f.emulator.inject(Fault(kind: kind, pathContains: "/portals/self", count: nil, milliseconds: nil))
            let expected: PortalAuthError.Code = kind == .http500 ? .httpError : .invalidResponse
            let error = await expectPortalAuthError(expected) {
                try await f.manager.send(
                    ArcGISRequest(url: URL(string: f.emulator.portalURL + "/sharing/rest/portals/self")!))
            }
            #expect(error?.message.contains("127.0.0.1:\(f.emulator.port)") == true)
            if kind == .html { #expect(error?.message.contains("HTML") == true) }
            if kind == .http500 {
                #expect(error?.cause == .httpStatus(500))
                #expect(error?.remedy == .retryLater)
            }
        }
    }

    @Test func garbageFromTheTokenServiceStoresNothing() async throws {
        try await Fixture.with { f throws in
            f.emulator.inject(
                Fault(kind: .malformedJSON, pathContains: "/generateToken", count: nil, milliseconds: nil))
            await expectPortalAuthError(.invalidResponse) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            #expect(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext) == nil)
        }
    }

    @Test func connectionRefusedAndUnknownHostAreNetworkErrors() async throws {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: CurlTransport())
        let refused = await expectPortalAuthError(.connectionFailed) {
            try await manager.send(ArcGISRequest(url: URL(string: "https://127.0.0.1:1/portal/sharing/rest/info")!))
        }
        #expect(refused?.message.contains("127.0.0.1:1") == true)
        let unknown = await expectPortalAuthError(.hostNotFound) {
            try await manager.send(
                ArcGISRequest(url: URL(string: "https://nonexistent.invalid/portal/sharing/rest/info")!))
        }
        #expect(unknown?.message.contains("nonexistent.invalid") == true)
    }

    @Test func untrustedCertificateIsAClearError() async throws {
        try await Fixture.with(trustEmulator: false) { f in
            let error = await expectPortalAuthError(.untrustedServer) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            #expect(error?.remedy == .trustServer(host: "127.0.0.1", port: f.emulator.port))
            #expect(f.provider.calls == 0)
        }
    }

    @Test func theSDKShapedFactoryFindsTheServerContextAndItsTokenService() async throws {
        try await Fixture.with { f in
            let credential = try await TokenCredential.credential(
                for: URL(string: f.emulator.portalURL)!, username: "alice", password: "alice-pass-123",
                tokenExpirationMinutes: 30, services: f.manager.services)
            #expect(credential.serverContext == f.portalContext)
            #expect(credential.tokenServiceURL.path().hasSuffix("/sharing/rest/generateToken"))
            #expect(credential.tokenExpirationMinutes == 30)
            #expect(credential.hasPassword)
            #expect(credential.tokenInfo.expirationDate.map { $0 <= Date().addingTimeInterval(30 * 60 + 5) } == true)
        }
    }

    @Test func tokenCloseToExpiryIsRegeneratedBeforeUseWhenThePasswordIsInMemory() async throws {
        try await Fixture.with { f in
            let tokenURL = URL(string: f.emulator.portalURL + "/sharing/rest/generateToken")!
            let fresh = try await TokenCredential.credential(
                for: f.portalContext, tokenServiceURL: tokenURL, username: "alice",
                password: "alice-pass-123",
                services: f.manager.services)
            let expiring = TokenCredential(
                serverContext: f.portalContext, tokenServiceURL: tokenURL, username: "alice",
                tokenInfo: TokenInfo(
                    accessToken: fresh.tokenInfo.accessToken, expirationDate: Date().addingTimeInterval(120),
                    isSSLRequired: true),
                referer: nil, tokenExpirationMinutes: 60, password: "alice-pass-123")
            try await f.manager.arcGISCredentialStore.add(expiring)
            f.emulator.resetCounters()
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(f.emulator.counters().generateTokenRequests == 1)
            #expect(f.provider.calls == 0)
            let now = try await f.manager.arcGISCredentialStore.credential(for: f.portalContext)
            #expect(now?.tokenInfo.accessToken != expiring.tokenInfo.accessToken)
            #expect(now?.tokenInfo.expires(within: 300) == false)
        }
    }

    @Test func expiredTokenWithoutPasswordChallengesThePluginAgain() async throws {
        try await Fixture.with { f in
            let expired = TokenCredential(
                serverContext: f.portalContext,
                tokenServiceURL: URL(string: f.emulator.portalURL + "/sharing/rest/generateToken")!, username: "alice",
                tokenInfo: TokenInfo(
                    accessToken: "expired-token", expirationDate: Date().addingTimeInterval(-10), isSSLRequired: true),
                referer: nil, tokenExpirationMinutes: 60)
            try await f.manager.arcGISCredentialStore.add(expired)
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(f.provider.calls == 1)
        }
    }

    @Test func revokedTokenIsRegeneratedSilentlyWhenThePasswordIsInMemory() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            f.emulator.expireAllTokens()
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(f.provider.calls == 1)
            #expect(f.emulator.counters().generateTokenRequests == 2)
        }
    }

    @Test func revokedTokenWithoutPasswordLeadsToOneNewSignIn() async throws {
        try await Fixture.with { f in
            let provider = CountingProvider()
            let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: f.transport)
            manager.register(TokenAuthenticationHandler(provider: provider, keepPassword: false))
            _ = try await manager.send(ArcGISRequest(url: f.communitySelf))
            f.emulator.expireAllTokens()
            _ = try await manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(provider.calls == 2)
            #expect(f.emulator.counters().generateTokenRequests == 2)
        }
    }

    @Test func expiredPregeneratedTokenSaysHowToGetANewOne() async throws {
        try await Fixture.with { f in
            let token = f.emulator.issueToken(username: "alice", lifetimeSeconds: 600)
            try await f.manager.arcGISCredentialStore.add(
                try PregeneratedTokenCredential(url: f.portal, token: token, expiresIn: 600))
            let ok = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            #expect(ok.json?["username"]?.stringValue == "alice")
            f.emulator.expireAllTokens()
            let error = await expectPortalAuthError(.credentialExpired) {
                try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            }
            #expect(
                error?.remedy
                    == .signIn(.init(kind: PregeneratedTokenCredential.kind, serverContext: f.portalContext)))
            #expect(f.provider.calls == 0)
        }
    }

    @Test func longRequestsGoAsPOST() async throws {
        try await Fixture.with { f in
            let values = (1...400).map { "'APN-\($0)'" }.joined(separator: ",")
            let response = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "APN IN (\(values))"), ("returnCountOnly", "true")]))
            #expect(response.json?["count"] != nil)
            let queries = f.transport.requests.filter { $0.url.path().hasSuffix("/query") }
            #expect(!queries.isEmpty)
            #expect(queries.allSatisfy { $0.method == .post && !$0.url.absoluteString.contains("where=") })
            // A short one stays GET.
            _ = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "1=1"), ("returnCountOnly", "true")]))
            #expect(f.transport.requests.last?.method == .get)
        }
    }

    @Test func credentialForScriptsUsesTheStoreAndFederatesWithoutPrompting() async throws {
        try await Fixture.with { f in
            // Without a credential: the remedy is a sign-in to the portal, for the portal and for its federated server.
            let noPortal = await expectPortalAuthError(.noCredential) {
                try await f.manager.credential(for: f.portal, interactive: false)
            }
            #expect(noPortal?.remedy == .signIn(.token(f.portalContext)))
            let noServer = await expectPortalAuthError(.noCredential) {
                try await f.manager.credential(for: f.query, interactive: false)
            }
            #expect(noServer?.remedy == .signIn(.token(f.portalContext)))
            _ = try await f.manager.send(ArcGISRequest(url: f.communitySelf))
            let portalCredential = try await f.manager.credential(for: f.portal, interactive: false)
            #expect(portalCredential.serverContext == f.portalContext)
            let serverCredential = try await f.manager.credential(for: f.query, interactive: false)
            #expect(serverCredential is FederatedTokenCredential)
            #expect(f.provider.calls == 1)
        }
    }

    @Test func clearCredentialStoresRemovesEverything() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.query, parameters: [("where", "1=1")]))
            #expect(try await f.manager.arcGISCredentialStore.summaries().count == 2)
            let removed = try await f.manager.clearCredentialStores()
            #expect(removed == 2)
            #expect(try await f.manager.arcGISCredentialStore.summaries().isEmpty)
            #expect(try await f.manager.arcGISCredentialStore.credential(for: f.portalContext) == nil)
        }
    }

    @Test func logoutOfAPortalRemovesItsFederatedTokens() async throws {
        try await Fixture.with { f in
            _ = try await f.manager.send(ArcGISRequest(url: f.query, parameters: [("where", "1=1")]))
            let removed = try await f.manager.arcGISCredentialStore.remove(f.portalContext)
            #expect(removed == 2)
            #expect(try await f.manager.arcGISCredentialStore.summaries().isEmpty)
        }
    }
}

@Suite struct PasswordScopeTests {
    /// The password goes only to a token service on the server's own host.
    @Test(arguments: [
        "https://evil.example.com/sharing/rest/generateToken", "https://evilarcgis.com/sharing/rest/generateToken",
    ])
    func passwordIsNeverSentToATokenServiceOnAnotherHost(_ service: String) async throws {
        try await Fixture.with { f in
            let other = try ServerContext("https://www.arcgis.com/sharing")
            for context in [f.portalContext, other] {
                let error = await expectPortalAuthError(.insecureTransport) {
                    try await TokenCredential.credential(
                        for: context, tokenServiceURL: URL(string: service)!, username: "alice",
                        password: "alice-pass-123", services: f.manager.services)
                }
                #expect(error?.message.contains("alice-pass-123") == false)
            }
            #expect(f.transport.requests.isEmpty)
        }
    }

}
