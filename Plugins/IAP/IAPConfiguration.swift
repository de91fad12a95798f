public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How to sign in to a Microsoft Entra Application Proxy (an identity-aware proxy, IAP) in front
/// of an ArcGIS Enterprise portal, as ArcGIS's IAP configuration JSON describes it.
public struct IAPConfiguration: Sendable, Equatable, Codable {
    /// Which Entra token goes in `Authorization: Bearer`.
    public enum BearerToken: String, Sendable, Equatable, Codable {
        /// The access token (the default; Microsoft's proxy accepts Entra-issued access tokens).
        case accessToken = "access_token"
        /// The ID token (what Esri's documentation says the SDK applies).
        case idToken = "id_token"
    }

    /// The default redirect: a loopback listener on a free port.
    public static let defaultRedirectURL = URL(string: "http://127.0.0.1/iap/callback")!

    /// The prompt values Entra knows (`""` sends no prompt).
    public static let promptTypes: [String] = ["", "none", "login", "consent", "select_account"]

    /// `https://login.microsoftonline.com/<tenant>/oauth2/v2.0/authorize`
    public var authorizeURL: URL
    /// `https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token`
    public var tokenURL: URL
    /// `https://login.microsoftonline.com/<tenant>/oauth2/v2.0/logout`
    public var logoutURL: URL
    /// The proxy's app (client) ID.
    public var clientID: String
    /// Where the browser comes back to (a loopback URL, usually). Encoded as the same JSON string
    /// the previous version's `String` was, so stored credentials still decode.
    public var redirectURL: URL
    /// The scopes, for example `["<client_id>/.default", "offline_access", "openid", "profile"]`.
    public var scopes: [String]
    /// The hosts behind the proxy: `host`, `host:port`, `*.domain` (subdomains), or `*` (every host).
    public var hostsBehindProxy: [String]
    /// The OpenID Connect `prompt`: `""` (none sent), `none`, `login`, `consent`, `select_account`.
    public var authorizationPromptType: String
    /// Which token is presented to the proxy.
    public var bearerToken: BearerToken
    /// How long to wait for the browser, in seconds.
    public var timeout: TimeInterval

    /// Creates a configuration and checks it; errors name the field and what is expected.
    public init(
        authorizeURL: URL, tokenURL: URL, logoutURL: URL, clientID: String,
        redirectURL: URL = IAPConfiguration.defaultRedirectURL,
        scopes: [String], hostsBehindProxy: [String], authorizationPromptType: String = "",
        bearerToken: BearerToken = .accessToken, timeout: TimeInterval = 300
    ) throws {
        for (name, url) in [("authorize_url", authorizeURL), ("token_url", tokenURL), ("logout_url", logoutURL)] {
            guard ConfigurationFile.isSecureOrLoopback(url) else {
                throw PortalAuthError(
                    .invalidConfiguration,
                    "\"\(name)\" must be an https URL (http only for 127.0.0.1, localhost or ::1), not "
                        + "\(URLRedaction.redact(url.absoluteString))",
                    remedy: .fixConfiguration(file: nil, key: name))
            }
        }
        guard !clientID.isEmpty else {
            throw PortalAuthError(
                .invalidConfiguration, "\"client_id\" must be the proxy app's client ID, not empty",
                remedy: .fixConfiguration(file: nil, key: "client_id"))
        }
        try Self.check(hostsBehindProxy: hostsBehindProxy, authorizationPromptType: authorizationPromptType)
        // Entra ID has no out-of-band redirect.
        guard let redirect = try? AuthorizationRedirect(redirectURL.absoluteString), redirect != .outOfBand else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\"redirect_url\" must be http://127.0.0.1[:PORT]/path or the app's registered URL, not \(redirectURL)",
                remedy: .fixConfiguration(file: nil, key: "redirect_url"))
        }
        guard timeout > 0 else {
            throw PortalAuthError(
                .invalidConfiguration, "the sign-in timeout must be a positive number of seconds",
                remedy: .fixConfiguration(file: nil, key: "timeout_seconds"))
        }
        self.authorizeURL = authorizeURL
        self.tokenURL = tokenURL
        self.logoutURL = logoutURL
        self.clientID = clientID
        self.redirectURL = redirectURL
        self.scopes = scopes
        self.hostsBehindProxy = hostsBehindProxy
        self.authorizationPromptType = authorizationPromptType
        self.bearerToken = bearerToken
        self.timeout = timeout
    }

    /// Checks `hosts_behind_proxy` (at least one host pattern, each well formed) and
    /// `authorization_prompt_type` (one OpenID Connect prompt, or none).
    private static func check(hostsBehindProxy: [String], authorizationPromptType: String) throws {
        guard !hostsBehindProxy.isEmpty else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\"hosts_behind_proxy\" must list at least one host (\"host\", \"host:port\", \"*.domain.com\" "
                    + "or \"*\")",
                remedy: .fixConfiguration(file: nil, key: "hosts_behind_proxy"))
        }
        for pattern in hostsBehindProxy where HostPattern(pattern) == nil {
            throw PortalAuthError(
                .invalidConfiguration,
                "\"hosts_behind_proxy\" has \"\(pattern)\", which is not a host, host:port, *.domain or *",
                remedy: .fixConfiguration(file: nil, key: "hosts_behind_proxy"))
        }
        guard promptTypes.contains(authorizationPromptType) else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\"authorization_prompt_type\" must be one of \"\", \"none\", \"login\", \"consent\", "
                    + "\"select_account\", not \"\(authorizationPromptType)\"",
                remedy: .fixConfiguration(file: nil, key: "authorization_prompt_type"))
        }
    }

    /// Whether requests to `url` go through the proxy (its host matches `hosts_behind_proxy`).
    /// The identity provider's own endpoints never do, even under `"*"`.
    public func canBeUsed(for url: URL) -> Bool {
        guard let host = url.host(percentEncoded: false)?.lowercased() else { return false }
        if [authorizeURL, tokenURL, logoutURL].contains(where: { ConfigurationFile.sameOrigin($0, url) }) {
            return false
        }
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return hostsBehindProxy.contains { HostPattern($0)?.matches(host: host, port: port) == true }
    }

    /// The redirect, classified.
    package var redirect: AuthorizationRedirect {
        (try? AuthorizationRedirect(redirectURL.absoluteString))
            ?? .loopback(host: "127.0.0.1", port: nil, path: "/iap/callback")
    }

    /// Identifies the sign-in in the store: the token endpoint and the client ID.
    public var iapIdentifier: String { tokenURL.absoluteString + "#client_id=" + clientID }

}

/// One entry of `hosts_behind_proxy`: `*`, `*.domain.com` (subdomains of domain.com, not the
/// bare domain: the reading that never sends the token to more hosts than listed), `host` (any
/// port) or `host:port`. Letter case does not matter.
struct HostPattern: Equatable {
    enum Kind: Equatable { case everyHost, subdomains(of: String), host(String) }
    var kind: Kind
    var port: Int?

    init?(_ text: String) {
        var text = String(text.filter { $0 != " " && $0 != "\t" }).lowercased()
        guard !text.isEmpty, !text.contains("/"), !text.contains("://") else { return nil }
        if text == "*" { kind = .everyHost; port = nil; return }
        port = nil
        let colons = text.filter { $0 == ":" }.count
        if colons > 1, !text.hasPrefix("[") {
            // A bare IPv6 address (no port can be given without brackets).
            guard Self.isIPv6(text) else { return nil }
            kind = .host(text)
            return
        }
        if let colon = text.lastIndex(of: ":"), !text.hasSuffix("]") {
            guard let number = Int(text[text.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
            text = String(text[..<colon])
        }
        if text.hasPrefix("[") {
            // A bracketed IPv6 address, [::1] or [::1]:8443: the brackets must close it.
            guard text.hasSuffix("]"), Self.isIPv6(String(text.dropFirst().dropLast())) else { return nil }
            kind = .host(String(text.dropFirst().dropLast()))
        } else if text.hasPrefix("*.") {
            let domain = String(text.dropFirst(2))
            guard Self.isHostName(domain) else { return nil }
            kind = .subdomains(of: domain)
        } else {
            // A name or an IPv4 address; never empty (":443" names no host).
            guard Self.isHostName(text) else { return nil }
            kind = .host(text)
        }
    }

    /// Letters, digits, `-`, `_` and `.`, not empty: a host name or IPv4 address.
    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }

    /// Hex digits, `:` and `.` (an IPv4 tail), with at least two colons: an IPv6 address.
    static func isIPv6(_ text: String) -> Bool {
        text.filter { $0 == ":" }.count >= 2 && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    func matches(host: String, port: Int) -> Bool {
        if let required = self.port, required != port { return false }
        switch kind {
        case .everyHost: return true
        case .subdomains(let domain): return host.hasSuffix("." + domain)
        case .host(let name): return host == name
        }
    }
}

extension IAPConfiguration {
    /// The keys of ArcGIS's IAP configuration JSON, plus portal-auth's `type`, `bearer_token`
    /// and `timeout_seconds`.
    public static let fileKeys: Set<String> = [
        "type", "authorize_url", "token_url", "logout_url", "client_id", "redirect_url", "scope",
        "hosts_behind_proxy", "authorization_prompt_type", "bearer_token", "timeout_seconds",
    ]

    /// The kind of file it reads (`"type": "iap"`), for ``ConfigurationFile/readingKind(among:)``.
    public static let fileKind = ConfigurationKind(
        type: "iap", name: "an identity-aware proxy (IAP) sign-in", keys: fileKeys)

    /// Reads a configuration file (see config/iap.example.json). Every required key must be
    /// there with the right type; unknown keys are refused, naming the key.
    public init(file: ConfigurationFile) throws {
        try file.requireOnlyKeys(Self.fileKeys)
        if let type = try file.optionalString("type"), type != "iap" {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(file.context): \"type\" is \"\(type)\" but this is an IAP configuration (\"iap\")",
                remedy: .fixConfiguration(file: file.source, key: "type"))
        }
        let url = file.httpsURL
        let bearerText = try file.optionalString("bearer_token") ?? BearerToken.accessToken.rawValue
        guard let bearer = BearerToken(rawValue: bearerText) else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\(file.context): \"bearer_token\" must be \"access_token\" or \"id_token\", not \"\(bearerText)\"",
                remedy: .fixConfiguration(file: file.source, key: "bearer_token"))
        }
        do {
            try self.init(
                authorizeURL: try url("authorize_url"), tokenURL: try url("token_url"),
                logoutURL: try url("logout_url"),
                clientID: try file.string("client_id"), redirectURL: try Self.redirectURL(in: file),
                scopes: try file.strings("scope", nonEmpty: true),
                hostsBehindProxy: try file.strings("hosts_behind_proxy", nonEmpty: true),
                authorizationPromptType: try file.optionalString("authorization_prompt_type") ?? "",
                bearerToken: bearer, timeout: TimeInterval(try file.optionalPositiveInteger("timeout_seconds") ?? 300))
        } catch let error as PortalAuthError where !error.message.hasPrefix(file.source) {
            var remedy = error.remedy
            if case .fixConfiguration(nil, let key) = remedy { remedy = .fixConfiguration(file: file.source, key: key) }
            throw PortalAuthError(error.code, "\(file.context): \(error.message)", remedy: remedy, cause: error.cause)
        }
    }

    /// The `redirect_url` of a file, as a URL.
    private static func redirectURL(in file: ConfigurationFile) throws -> URL {
        let text = try file.string("redirect_url")
        guard let url = URL(string: text) else {
            throw PortalAuthError(
                .invalidConfiguration,
                "\"redirect_url\" must be http://127.0.0.1[:PORT]/path or the app's registered URL, not \(text)",
                remedy: .fixConfiguration(file: nil, key: "redirect_url"))
        }
        return url
    }

    /// Reads a configuration file from a path.
    public init(contentsOf path: String) throws {
        try self.init(file: try ConfigurationFile(contentsOf: path))
    }
}
