import Logging
import NIOConcurrencyHelpers

/// The addresses the emulator answers on, known once the HTTPS listener is bound.
struct EmulatorURLs: Sendable, Equatable {
    /// "https://127.0.0.1:PORT"
    var baseURL: String
    /// baseURL + "/portal"
    var portalURL: String { baseURL + "/portal" }
    /// baseURL + "/server"
    var serverURL: String { baseURL + "/server" }
    /// baseURL + "/standalone"
    var standaloneServerURL: String { baseURL + "/standalone" }
    /// A server that names the portal as its owner in `rest/info` but is not federated with it.
    var claimantServerURL: String { baseURL + "/claimant" }
    /// "https://127.0.0.1:PROXYPORT" when the application proxy runs.
    var proxyBaseURL: String?
    /// "https://127.0.0.1:LOCATIONPORT" when the location services run.
    var locationServicesBaseURL: String?

    /// The same addresses as seen through the application proxy.
    var throughProxy: EmulatorURLs {
        EmulatorURLs(
            baseURL: proxyBaseURL ?? baseURL, proxyBaseURL: proxyBaseURL,
            locationServicesBaseURL: locationServicesBaseURL)
    }
}

/// State shared by every request handler: configuration, tokens, counters, faults.
final class EmulatorContext: Sendable {
    /// The configuration the emulator started with.
    let configuration: EmulatorConfiguration
    /// The clock every expiry decision reads.
    let clock: EmulatorClock
    /// Issued tokens.
    let tokens: TokenStore
    /// The API keys from the configuration and those added at run time.
    let apiKeys: APIKeyStore
    /// The API key credentials users made at run time (``APIKeyRoutes``).
    let apiKeyApps = APIKeyApps()
    /// OAuth authorization codes and refresh tokens.
    let grants: OAuthGrants
    /// The emulated Entra ID's tokens, codes and refresh tokens.
    let entra: EntraTokens
    /// Request counters.
    let counters = CounterBook()
    /// Injected faults.
    let faults = FaultTable()
    /// The streamed answers a test holds part-way (``StreamRoutes``).
    let streams = StreamHolds()
    /// Users by lower-cased username.
    let users: [String: EmulatorUser]
    /// Logger for the request handlers.
    let logger: Logger
    /// Passwords changed at run time (`POST /emulator/password`), by lower-cased username.
    private let changedPasswords = NIOLockedValueBox<[String: String]>([:])
    private let boundURLs = NIOLockedValueBox<EmulatorURLs?>(nil)
    private let accessTokenLifetime: NIOLockedValueBox<Int>
    private let entraLifetime: NIOLockedValueBox<Int>

    init(configuration: EmulatorConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.clock = EmulatorClock()
        self.tokens = TokenStore(clock: clock)
        self.apiKeys = APIKeyStore(keys: configuration.apiKeys, clock: clock)
        self.grants = OAuthGrants(clock: clock)
        self.entra = EntraTokens(clock: clock)
        self.accessTokenLifetime = NIOLockedValueBox(configuration.oauthAccessTokenLifetimeSeconds)
        self.entraLifetime = NIOLockedValueBox(configuration.entraTokenLifetimeSeconds)
        var users: [String: EmulatorUser] = [:]
        for user in configuration.users { users[user.username.lowercased()] = user }
        self.users = users
    }

    /// The public URLs; a placeholder until the listener is bound.
    var urls: EmulatorURLs {
        boundURLs.withLockedValue { $0 } ?? EmulatorURLs(baseURL: "https://127.0.0.1")
    }

    /// The addresses as the request's client sees them: through the proxy or directly.
    func urls(for request: IncomingRequest) -> EmulatorURLs {
        request.viaProxy ? urls.throughProxy : urls
    }

    /// Records the bound HTTPS address.
    func setURLs(_ urls: EmulatorURLs) {
        boundURLs.withLockedValue { $0 = urls }
    }

    /// The lifetime of OAuth access tokens issued from now on, in seconds (starts at the
    /// configuration's `oauthAccessTokenLifetimeSeconds`).
    var oauthAccessTokenLifetimeSeconds: Int {
        get { accessTokenLifetime.withLockedValue { $0 } }
        set { accessTokenLifetime.withLockedValue { $0 = newValue } }
    }

    /// The lifetime of Entra access and ID tokens issued from now on, in seconds.
    var entraTokenLifetimeSeconds: Int {
        get { entraLifetime.withLockedValue { $0 } }
        set { entraLifetime.withLockedValue { $0 = newValue } }
    }

    /// The registered OAuth app with this `client_id` (configured apps first, then the built-in
    /// ones every portal has), if any.
    func app(clientID: String) -> EmulatorApp? {
        configuration.apps.first { $0.clientId == clientID }
            ?? EmulatorApp.builtInApps.first { $0.clientId == clientID }
            ?? apiKeyApps.app(clientID: clientID).map {
                EmulatorApp(clientId: clientID, clientSecret: $0.clientSecret, name: $0.title)
            }
    }

    /// Revokes a refresh token (and the access tokens issued from it) or an access token.
    func revoke(_ token: String) {
        tokens.revoke(token, isRefreshToken: grants.revokeRefreshToken(token))
    }

    /// Revokes every refresh token and the access tokens issued from them.
    func revokeAllRefreshTokens() {
        for token in grants.revokeAllRefreshTokens() { tokens.revoke(token, isRefreshToken: true) }
    }

    /// The current time in epoch milliseconds, by the emulator's clock.
    var nowMilliseconds: Int64 { clock.nowMilliseconds }

    /// The user with this name (case-insensitive), if any.
    func user(named name: String) -> EmulatorUser? {
        guard var user = users[name.lowercased()] else { return nil }
        if let password = changedPasswords.withLockedValue({ $0[name.lowercased()] }) { user.password = password }
        return user
    }

    /// Changes a user's password (as an administrator rotates it); false for an unknown user. Her
    /// tokens stay valid until they expire, as a portal's do.
    func changePassword(of name: String, to password: String) -> Bool {
        guard users[name.lowercased()] != nil else { return false }
        changedPasswords.withLockedValue { $0[name.lowercased()] = password }
        return true
    }
}
