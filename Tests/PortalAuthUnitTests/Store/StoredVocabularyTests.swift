import Foundation
import PortalAuthIAP
import PortalAuthOAuthUser
import Testing

@testable import PortalAuth

// The ArcGIS Maps SDK's vocabulary (#13): redirect URLs are `URL`s, read back from what the
// previous version (a `String`) stored, and `signOut()` revokes, invalidates IAP and clears.

/// An OAuth user credential as the previous version (redirectURL a String) stored it.
private let storedOAuthUserCredential = """
    {"credential":{"clientID":"app","redirectURI":"http://127.0.0.1:5000/oauth/callback",\
    "redirectURL":"http://127.0.0.1/oauth/callback","refreshToken":"refresh-token",\
    "refreshTokenExpirationDate":4102444800000,"serverContext":"https://portal.example.com/portal",\
    "tokenInfo":{"accessToken":"access-token","expirationDate":4102444800000,"isSSLRequired":true},\
    "username":"alice"},"kind":"oauth-user","version":1}
    """

/// An IAP credential as the previous version (its configuration's redirectURL a String) stored it.
private let storedIAPCredential = """
    {"credential":{"accessToken":{"accessToken":"iap-token","expirationDate":4102444800000,"isSSLRequired":true},\
    "configuration":{"authorizationPromptType":"","authorizeURL":"https://login.example.com/t/oauth2/v2.0/authorize",\
    "bearerToken":"access_token","clientID":"iap-client","hostsBehindProxy":["*.example.com"],\
    "logoutURL":"https://login.example.com/t/oauth2/v2.0/logout","redirectURL":"http://127.0.0.1:8400/iap/callback",\
    "scopes":["iap-client/.default","offline_access"],"timeout":300,\
    "tokenURL":"https://login.example.com/t/oauth2/v2.0/token"},"grantedScopes":["iap-client/.default"],\
    "redirectURI":"http://127.0.0.1:8400/iap/callback","refreshToken":"iap-refresh","username":"alice@example.com"},\
    "kind":"iap","version":1}
    """

/// Credentials stored by the previous version (#13) read back, and are written the same way:
/// through a memory backend, no server.
@Suite struct StoredVocabularyTests {
    @Test("an OAuth user credential stored with a String redirect URL reads back, and is written the same way")
    func anOAuthUserCredentialStoredByThePreviousVersionDecodes() async throws {
        let backend = MemoryCredentialBackend()
        let server = "https://portal.example.com/portal"
        try backend.store(
            CredentialAttributes(store: "arcgis", server: server, kind: OAuthUserCredential.kind, username: "alice"),
            secret: storedOAuthUserCredential)
        let store = ArcGISCredentialStore(backend: backend)
        store.register(OAuthUserCredential.self)
        let read = try #require(try await store.credential(for: try ServerContext(server)) as? OAuthUserCredential)
        #expect(read.redirectURL == URL(string: "http://127.0.0.1/oauth/callback")!)
        #expect(read.redirectURL == OAuthUserConfiguration.defaultRedirectURL)
        #expect(read.refreshToken == "refresh-token")

        // Written back, it is the bytes the previous version wrote: older copies read it too.
        let again = MemoryCredentialBackend()
        try await ArcGISCredentialStore(backend: again).add(read)
        #expect(try again.lookup(CredentialQuery(server: server)) == storedOAuthUserCredential)
    }

    @Test("an IAP credential stored with a String redirect URL reads back, and is written the same way")
    func anIAPCredentialStoredByThePreviousVersionDecodes() async throws {
        let backend = MemoryCredentialBackend()
        let identifier = "https://login.example.com/t/oauth2/v2.0/token#client_id=iap-client"
        try backend.store(
            CredentialAttributes(
                store: IAPCredentialStore.storeName, server: identifier, kind: IAPCredential.kind,
                username: "alice@example.com"),
            secret: storedIAPCredential)
        let store = IAPCredentialStore(backend: backend)
        store.register(IAPCredential.self)
        let url = URL(string: "https://portal.example.com/portal/sharing/rest/portals/self")!
        let read = try #require(try await store.credential(for: url) as? IAPCredential)
        #expect(read.configuration.redirectURL == URL(string: "http://127.0.0.1:8400/iap/callback")!)
        #expect(read.iapIdentifier == identifier)

        let again = MemoryCredentialBackend()
        try await IAPCredentialStore(backend: again).add(read)
        #expect(try again.lookup(CredentialQuery(server: identifier)) == storedIAPCredential)
    }
}
