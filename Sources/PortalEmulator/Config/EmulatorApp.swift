/// An OAuth 2.0 application registered with the emulated portal.
public struct EmulatorApp: Codable, Sendable, Equatable {
    /// The `client_id`.
    public var clientId: String
    /// The `client_secret` for the client_credentials grant; nil for a public app
    /// (which can only sign users in with PKCE).
    public var clientSecret: String?
    /// Display name, shown on the sign-in page.
    public var name: String
    /// Registered redirect URIs. A loopback URI without a port
    /// (`http://127.0.0.1/oauth/callback`) admits every port with the same path (RFC 8252);
    /// with a port it admits only that port. `urn:ietf:wg:oauth:2.0:oob` allows the
    /// out-of-band approval page.
    public var redirectUris: [String]
    /// True for the apps every ArcGIS portal has built in (``pythonAPI``, ``arcGISOnline``): they
    /// may redirect to any https URL on the portal's own host and sign in without PKCE.
    public internal(set) var isBuiltIn = false

    /// Creates an app.
    public init(clientId: String, clientSecret: String? = nil, name: String? = nil, redirectUris: [String] = []) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.name = name ?? clientId
        self.redirectUris = redirectUris
    }

    /// `portal-auth-cli`: a public app for the CLI (loopback on any port, oob, and a web URL).
    public static let portalAuthCLI = EmulatorApp(
        clientId: "portal-auth-cli", clientSecret: nil, name: "portal-auth CLI",
        redirectUris: [
            "http://127.0.0.1/oauth/callback", "urn:ietf:wg:oauth:2.0:oob", "https://app.example.com/oauth/callback",
        ])

    /// `portal-auth-app`: a confidential app for the client_credentials grant
    /// (secret `app-secret-456`).
    public static let portalAuthApp = EmulatorApp(
        clientId: "portal-auth-app", clientSecret: "app-secret-456", name: "portal-auth app",
        redirectUris: ["urn:ietf:wg:oauth:2.0:oob"])

    /// `iap-client`: the emulated Entra ID's registration of the application proxy's
    /// pre-authentication app (a public client; loopback on any port, and a web URL).
    public static let iapClient = EmulatorApp(
        clientId: "iap-client", clientSecret: nil, name: "ArcGIS Enterprise behind Application Proxy",
        redirectUris: ["http://127.0.0.1/iap/callback", "https://app.example.com/iap/callback"])

    /// `pythonapi`: the app the ArcGIS API for Python signs users in with (built in; public,
    /// out-of-band or an https page on the portal's host, no PKCE).
    public static let pythonAPI = builtIn(clientId: "pythonapi", name: "ArcGIS API for Python")

    /// `arcgisonline`: the app the ArcGIS API for Python falls back to when `pythonapi` is unknown
    /// (built in, like ``pythonAPI``).
    public static let arcGISOnline = builtIn(clientId: "arcgisonline", name: "ArcGIS Online")

    /// The apps every portal has whatever its configuration registers.
    public static let builtInApps = [pythonAPI, arcGISOnline]

    private static func builtIn(clientId: String, name: String) -> EmulatorApp {
        var app = EmulatorApp(clientId: clientId, name: name, redirectUris: ["urn:ietf:wg:oauth:2.0:oob"])
        app.isBuiltIn = true
        return app
    }

    private enum CodingKeys: String, CodingKey { case clientId, clientSecret, name, redirectUris }

    /// Decodes an app; only `clientId` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            clientId: try c.decode(String.self, forKey: .clientId),
            clientSecret: try c.decodeIfPresent(String.self, forKey: .clientSecret),
            name: try c.decodeIfPresent(String.self, forKey: .name),
            redirectUris: try c.decodeIfPresent([String].self, forKey: .redirectUris) ?? [])
    }

    /// Encodes every field (`clientSecret` as null for a public app).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(clientId, forKey: .clientId)
        try c.encode(clientSecret, forKey: .clientSecret)
        try c.encode(name, forKey: .name)
        try c.encode(redirectUris, forKey: .redirectUris)
    }

    /// Whether `uri` is one of this app's redirect URIs (loopback registrations without a
    /// port match any port; query strings are not allowed).
    func allows(redirectURI uri: String) -> Bool {
        redirectUris.contains { Self.matches(uri, registered: $0) }
    }

    /// Like ``allows(redirectURI:)``, and for a built-in app also any https URL on the portal's
    /// host and port (`portalBaseURL` is "https://HOST:PORT").
    func allows(redirectURI uri: String, portalBaseURL: String) -> Bool {
        if allows(redirectURI: uri) { return true }
        guard isBuiltIn else { return false }
        let base = portalBaseURL.lowercased()
        let candidate = uri.lowercased()
        return candidate == base || candidate.hasPrefix(base + "/") || candidate.hasPrefix(base + "?")
    }

    static func matches(_ uri: String, registered: String) -> Bool {
        if uri == registered { return true }
        guard let given = LoopbackURI(uri), let allowed = LoopbackURI(registered) else { return false }
        return given.host == allowed.host && given.path == allowed.path
            && (allowed.port == nil || allowed.port == given.port)
    }
}

/// `http://127.0.0.1[:port]/path` (or `localhost`, `[::1]`), split up.
struct LoopbackURI: Equatable {
    var host: String
    var port: Int?
    var path: String

    init?(_ text: String) {
        guard text.hasPrefix("http://"), !text.contains("?"), !text.contains("#") else { return nil }
        let rest = text.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        var hostPart = authority
        port = nil
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
                return nil
            }
            port = number
            hostPart = String(authority[..<colon])
        }
        host = hostPart.lowercased()
        guard ["127.0.0.1", "localhost", "[::1]"].contains(host) else { return nil }
    }
}
