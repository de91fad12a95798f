import Foundation
import PortalAuth
import PortalAuthIAP
import PortalAuthOAuthUser
import PortalAuthToken
import Testing

@Suite struct PortalAuthErrorTests {
    let portal = try! ServerContext("https://host.example.com/portal")

    @Test func equalityIgnoresMessageCauseAndLocation() {
        let a = PortalAuthError(
            .noCredential, "no credential for the portal", remedy: .signIn(.token(portal)), file: "A.swift", line: 1)
        let b = PortalAuthError(
            .noCredential, "worded otherwise", remedy: .signIn(.token(portal)), cause: .httpStatus(499),
            file: "B.swift", line: 2)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        #expect(a != PortalAuthError(.credentialExpired, a.message, remedy: a.remedy))
        #expect(a != PortalAuthError(.noCredential, a.message, remedy: .signIn(.token(portal, username: "alice"))))
        #expect(a != PortalAuthError(.noCredential, a.message))
    }

    @Test func theOldInitializerHasNoRemedyAndKeepsTheLocation() {
        let error = PortalAuthError(.httpError, "the server failed", cause: .httpStatus(500))
        #expect(error.remedy == .none)
        #expect(error.file.hasSuffix("ErrorTests.swift") && error.line > 0)
        #expect(error.description == "the server failed")
    }

    @Test func theDescriptionAddsTheRemedyInTheLibrarysWords() {
        let error = PortalAuthError(.untrustedServer, "not trusted", remedy: .trustServer(host: "h", port: 8443))
        #expect(error.description == "not trusted: trust the CA of h:8443, or its certificate")
        #expect(error.detailedDescription.contains("[untrustedServer]"))
        #expect(!error.description.contains("portal-auth") && !error.description.contains("--"))
    }

    @Test func credentialsSayHowToSignInAgain() throws {
        let info = TokenInfo(accessToken: "t", expirationDate: nil, isSSLRequired: true)
        let token = TokenCredential(
            serverContext: portal, tokenServiceURL: URL(string: portal.url + "/sharing/rest/generateToken")!,
            username: "alice", tokenInfo: info, referer: nil, tokenExpirationMinutes: 60)
        #expect(token.howToSignIn == .token(portal, username: "alice"))
        let server = try ServerContext("https://host.example.com/server")
        let federated = FederatedTokenCredential(
            serverContext: server, portal: portal, tokenInfo: info, username: "alice", referer: nil)
        #expect(federated.howToSignIn == .token(portal, username: "alice"))
        let oauth = OAuthUserCredential(
            serverContext: portal, clientID: "app", redirectURL: URL(string: "r")!, redirectURI: "r", username: "bob",
            tokenInfo: info, refreshToken: "x", refreshTokenExpirationDate: nil)
        #expect(
            oauth.howToSignIn
                == PortalAuthError.SignIn(
                    kind: OAuthUserCredential.kind, serverContext: portal, username: "bob", clientID: "app"))
        #expect(PortalAuthError.SignIn.identityAwareProxy().kind == IAPCredential.kind)
    }
}
