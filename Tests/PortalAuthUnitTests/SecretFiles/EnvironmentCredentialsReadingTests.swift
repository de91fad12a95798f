import Foundation
import PortalAuth
import PortalAuthEnvironment
import PortalAuthToken
import Testing

/// How `EnvironmentCredentials.read(from:readingHost:)` reads the variables: the first complete
/// pair wins, half a pair or no `ARCGIS_HOST` is an error naming what to set, a plain http host is
/// refused, and nothing set is no credential.
@Suite struct EnvironmentCredentialsReadingTests {
    static func read(_ variables: [String: String]) throws -> EnvironmentCredentials? {
        try EnvironmentCredentials.read(from: EnvironmentSecretResolver { variables[$0] })
    }

    static let host = ["ARCGIS_HOST": "https://portal.example.com/portal"]

    @Test func nothingSetIsNoCredential() throws {
        #expect(try Self.read(Self.host) == nil)
        #expect(try Self.read(["ARCGIS_USER": ""]) == nil)
        #expect(!EnvironmentCredentials.anyVariableSet(in: EnvironmentSecretResolver { Self.host[$0] }))
    }

    @Test func theFirstCompletePairWins() throws {
        let all = Self.host.merging([
            "ARCGIS_CLIENT": "app", "ARCGIS_SECRET": "s", "ARCGIS_USER": "alice", "ARCGIS_PASSWORD": "p",
            "ARCGIS_API_KEY": "k",
        ]) { $1 }
        let client = try #require(try Self.read(all))
        guard case .clientCredentials(let id, _) = client.source else { throw Unexpected(client.source) }
        #expect(id == "app")
        #expect(client.variables == ["ARCGIS_HOST", "ARCGIS_CLIENT", "ARCGIS_SECRET"])
        #expect(client.portal == (try ServerContext("https://portal.example.com/portal")))
        var password = all
        password["ARCGIS_CLIENT"] = nil
        password["ARCGIS_SECRET"] = nil
        let user = try #require(try Self.read(password))
        guard case .password(let name, let secret) = user.source else { throw Unexpected(user.source) }
        #expect(name == "alice" && secret.secret == "p")
        let key = try #require(try Self.read(Self.host.merging(["ARCGIS_API_KEY": "k"]) { $1 }))
        #expect(key.variables == ["ARCGIS_HOST", "ARCGIS_API_KEY"])
        #expect(EnvironmentCredentials.anyVariableSet(in: EnvironmentSecretResolver { all[$0] }))
    }

    @Test func halfAPairNamesTheOtherHalf() throws {
        let error = #expect(throws: PortalAuthError.self) {
            try Self.read(Self.host.merging(["ARCGIS_USER": "alice"]) { $1 })
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "ARCGIS_USER is set but ARCGIS_PASSWORD is not")
        #expect(error?.remedy == .fixEnvironment(variables: ["ARCGIS_USER", "ARCGIS_PASSWORD"]))
    }

    @Test func aCredentialWithoutAHostNamesTheHost() throws {
        let error = #expect(throws: PortalAuthError.self) { try Self.read(["ARCGIS_API_KEY": "k"]) }
        #expect(error?.message == "ARCGIS_API_KEY is set but ARCGIS_HOST is not")
        #expect(error?.remedy == .fixEnvironment(variables: ["ARCGIS_HOST"]))
    }

    @Test func aPlainHTTPHostIsRefusedBeforeAnySecretTravels() throws {
        let error = #expect(throws: PortalAuthError.self) {
            try Self.read(["ARCGIS_HOST": "http://portal.example.com/portal", "ARCGIS_API_KEY": "k"])
        }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains("a plain http URL") == true)
    }

    @Test func theHostIsReadTheCallersWay() throws {
        let variables = ["ARCGIS_HOST": "portal.example.com", "ARCGIS_API_KEY": "k"]
        let read = try EnvironmentCredentials.read(
            from: EnvironmentSecretResolver { variables[$0] },
            readingHost: { URL(string: "https://\($0)/portal")! })
        #expect(read?.portal == (try ServerContext("https://portal.example.com/portal")))
    }

    /// A source the test did not expect.
    struct Unexpected: Error {
        let source: EnvironmentCredentials.Source
        init(_ source: EnvironmentCredentials.Source) { self.source = source }
    }

    /// The environment's renewal says it can renew its own portal's sign-in (a password's token; an
    /// app's), and nothing else: another portal's, or anything with an API key.
    @Test func theEnvironmentsRenewalCanRenewItsOwnPortalsSignIn() throws {
        let portal = try ServerContext("https://portal.example.com/portal")
        func token(_ context: ServerContext) -> TokenCredential {
            TokenCredential(
                serverContext: context, tokenServiceURL: URL(string: context.url + "/sharing/rest/generateToken")!,
                username: "alice", tokenInfo: TokenInfo(accessToken: "t", expirationDate: nil, isSSLRequired: true),
                referer: nil, tokenExpirationMinutes: 60)
        }
        let password = try #require(
            try Self.read(Self.host.merging(["ARCGIS_USER": "alice", "ARCGIS_PASSWORD": "p"]) { $1 }))
        #expect(EnvironmentRenewal(credentials: password).canRenew(token(portal)))
        #expect(
            !EnvironmentRenewal(credentials: password).canRenew(
                token(try ServerContext("https://other.example.com/portal"))))
        let key = try #require(try Self.read(Self.host.merging(["ARCGIS_API_KEY": "k"]) { $1 }))
        #expect(!EnvironmentRenewal(credentials: key).canRenew(token(portal)))
    }
}
