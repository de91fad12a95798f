#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An ArcGIS API key (an API key access token): a long-lived token (one day to one year) that a
/// program presents for location services (geocoding, routing, basemap styles), portal items and
/// feature services, as far as its privileges reach. The name is the ArcGIS Maps SDK's.
///
/// Its scope is the portal it names, the services the portal's `portals/self` lists under
/// `helperServices` (read once, at sign-in: ``credential(apiKey:portalURL:expirationDate:hosts:services:)``)
/// and the extra hosts given; never any other host, and never over plain http
/// (``applies(to:)``). It is kept in the ArcGIS store under a scope of its own
/// (``CredentialScope/apiKey(portal:)``), so a user's credential for the same portal stays beside it;
/// the manager presents it where no user credential applies (``AuthenticationManager/apiKey``).
public struct APIKeyCredential: ArcGISCredential, Equatable {
    /// ``CredentialScope/apiKey(portal:)``.
    public var scope: CredentialScope { .apiKey(portal: portal) }
    /// `api-key`.
    public static let kind = "api-key"
    /// The portal the key belongs to.
    public let portal: ServerContext
    /// The portal.
    public var serverContext: ServerContext { portal }
    /// The key, with its expiry when known (always sent over https only).
    public let tokenInfo: TokenInfo
    /// None: an API key belongs to an application, not to a user.
    public var username: String? { nil }
    /// The services the key goes to besides the portal: each one's URL (scheme, host, port and
    /// path prefix), from the portal's `helperServices`.
    public let serviceContexts: [ServerContext]
    /// Extra hosts the key goes to, as `https://host:port` (every path on them).
    public let hosts: [ServerContext]
    /// The portal item of the API key credential the key was minted from (``APIKeyAdministration``
    /// creates and rotates keys by it), when known: `nil` for a key made in the portal's web pages
    /// and stored as it is.
    public var itemID: String?
    /// The names items are stored under (`services` as the items earlier versions wrote say it).
    enum CodingKeys: String, CodingKey {
        case portal, tokenInfo, serviceContexts = "services", hosts, itemID
    }
    /// None: a key is not renewed, only replaced.
    public var renewalLeeway: TimeInterval { 0 }
    /// Storing a new API key for the portal.
    public var howToSignIn: PortalAuthError.SignIn { PortalAuthError.SignIn(kind: Self.kind, serverContext: portal) }

    /// Creates the credential for a key and a portal, with no services beyond the portal and `hosts`
    /// (``credential(apiKey:portalURL:expirationDate:hosts:services:)`` reads the portal's services).
    ///
    /// - Parameters:
    ///   - apiKey: the key; leading and trailing white space is dropped.
    ///   - portalURL: the portal (https).
    ///   - expirationDate: when the key expires, when known.
    ///   - hosts: extra hosts the key is sent to, `host` or `host:port` (443 when no port is given).
    ///   - serviceURLs: service URLs the key is sent to (https), each with every URL under it.
    /// - Throws: ``PortalAuthError/Code/secretMissing`` for an empty key,
    ///   ``PortalAuthError/Code/invalidArgument`` for a key with control characters or white space
    ///   inside, ``PortalAuthError/Code/insecureTransport`` for an http portal or service, and
    ///   ``PortalAuthError/Code/invalidURL`` for a host or URL that cannot be read.
    public init(
        apiKey: String, portalURL: URL, expirationDate: Date? = nil, hosts: [String] = [], serviceURLs: [URL] = []
    ) throws {
        let key = try Self.checkedKey(apiKey)
        portal = try Self.httpsContext(portalURL, what: "the portal", path: nil)
        tokenInfo = TokenInfo(accessToken: key, expirationDate: expirationDate, isSSLRequired: true)
        serviceContexts = try serviceURLs.map { try Self.httpsContext($0, what: "the service", path: $0) }
        self.hosts = try hosts.map(Self.hostContext)
    }

    /// This credential with another key, and the same portal, services and hosts: the key a
    /// rotated file holds now (``RotatingAPIKey``). Its expiry is unknown, as a key's from a file is.
    ///
    /// - Throws: as the initializer does for the key (empty, control characters, white space inside).
    package func replacingKey(with text: String) throws -> APIKeyCredential {
        try APIKeyCredential(rotating: self, to: Self.checkedKey(text))
    }

    /// `other` with the checked key `key`.
    private init(rotating other: APIKeyCredential, to key: String) {
        portal = other.portal
        tokenInfo = TokenInfo(accessToken: key, expirationDate: nil, isSSLRequired: true)
        serviceContexts = other.serviceContexts
        hosts = other.hosts
        itemID = nil
    }

    /// The key, checked: not empty, no control characters, no white space inside.
    static func checkedKey(_ text: String) throws -> String {
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map(text.index(after:)) ?? start
        let key = String(text[start..<max(start, end)])
        guard !key.isEmpty else {
            throw PortalAuthError(.secretMissing, "the API key is empty", remedy: .provide(.apiKey))
        }
        guard TokenInfo.isUsableToken(key), !key.contains(where: { $0.isWhitespace }) else {
            throw PortalAuthError(
                .invalidArgument, "the API key contains control characters or white space, so it is not one key",
                remedy: .provide(.apiKey))
        }
        return key
    }

    /// `url`'s server context (or, with `path`, its `scheme://host:port/path`), which must be https.
    static func httpsContext(_ url: URL, what: String, path: URL?) throws -> ServerContext {
        let parts = try ServerContext.parts(of: url)
        guard parts.scheme == "https" else {
            throw PortalAuthError(
                .insecureTransport,
                "\(what) \(ServerContext.describe(url)) is not https: an API key is never sent over http",
                remedy: .useHTTPS(url: url))
        }
        guard path != nil else { return try ServerContext(url: url) }
        return ServerContext(scheme: parts.scheme, host: parts.host, port: parts.port, path: parts.path)
    }

    /// `host` or `host:port` as `https://host:port`.
    static func hostContext(_ text: String) throws -> ServerContext {
        guard !text.isEmpty, !text.contains("/"), !text.contains("@"), let url = URL(string: "https://" + text) else {
            throw PortalAuthError(.invalidURL, "'\(text)' is not a host or host:port", remedy: .checkURL)
        }
        return try ServerContext.host(of: url)
    }

    /// Whether a request to `url` carries the key: https only, and inside the portal, one of
    /// ``serviceContexts`` (its path or below) or on one of ``hosts``. Decided from the URL alone.
    public func applies(to url: URL) -> Bool {
        guard let parts = try? ServerContext.parts(of: url), parts.scheme == "https" else { return false }
        if portal.contains(url) { return true }
        if serviceContexts.contains(where: { $0.contains(url) }) { return true }
        return hosts.contains { $0.host == parts.host && $0.port == parts.port }
    }

    /// The error for a request the server refused with this key: a 498 says it expired or was
    /// invalidated; the remedy is to store a new key.
    package func refusal(_ error: ArcGISError, at url: URL) -> PortalAuthError {
        let what =
            error.code == 498
            ? "has expired or was invalidated" : "was refused (\(error.code) \(error.message))"
        return PortalAuthError(
            .credentialExpired, "the API key for \(portal) \(what) at \(ServerContext.describe(url))",
            remedy: .storeAPIKey(portal: portal), cause: error.cause)
    }

    /// The error for a key whose expiry has passed by this machine's clock.
    var expiredError: PortalAuthError {
        let when = tokenInfo.expirationDate.map { " at " + $0.formatted(.iso8601) } ?? ""
        return PortalAuthError(
            .credentialExpired, "the API key for \(portal) has expired\(when)", remedy: .storeAPIKey(portal: portal))
    }

    /// A key made on this machine (it knows its item, ``itemID``) is replaced by a rotation when the
    /// program keeping sign-ins alive is asked to; any other works until its expiry (rotating it
    /// is an administrator's act).
    public var renewal: CredentialRenewal {
        itemID == nil ? .cannotRenew(endsAt: tokenInfo.expirationDate) : .rotates(endsAt: tokenInfo.expirationDate)
    }

    /// A new key stored for its portal.
    public var remedyWhenLapsed: PortalAuthError.Remedy? { .storeAPIKey(portal: portal) }
}

extension APIKeyCredential {
    /// Makes the credential for `apiKey` and the portal at `portalURL`: reads `portals/self` once,
    /// with the key (so a refused key is known now), and keeps the https URLs it lists under
    /// `helperServices` (geocode, route, …) as the key's services.
    ///
    /// - Parameters:
    ///   - expirationDate: when the key expires, when known.
    ///   - hosts: extra hosts the key is sent to (see ``init(apiKey:portalURL:expirationDate:hosts:serviceURLs:)``).
    /// - Throws: the initializer's errors; ``PortalAuthError/Code/credentialExpired`` when the portal
    ///   refuses the key (498), or the portal's error.
    public static func credential(
        apiKey: String, portalURL: URL, expirationDate: Date? = nil, hosts: [String] = [],
        services: AuthenticationServices
    ) async throws -> APIKeyCredential {
        let bare = try APIKeyCredential(apiKey: apiKey, portalURL: portalURL, expirationDate: expirationDate)
        let selfURL = URL(string: bare.portal.portalRESTURL + "/portals/self?f=json")!
        var request = TransportRequest(url: selfURL, maxResponseSize: TransportRequest.maxJSONResponseSize)
        request.setHeader("X-Esri-Authorization", "Bearer " + bare.tokenInfo.accessToken)
        let response = try await services.sendWithoutCredential(request)
        if let failure = AuthenticationServices.answerFailure(response, from: selfURL) {
            if let error = failure.arcGIS, error.code == 498 || error.code == 499 {
                throw bare.refusal(error, at: selfURL)
            }
            throw failure.error
        }
        let info = try JSONValue.parse(response.body, source: ServerContext.describeWithScheme(selfURL))
        return try APIKeyCredential(
            apiKey: apiKey, portalURL: portalURL, expirationDate: expirationDate, hosts: hosts,
            serviceURLs: helperServiceURLs(info["helperServices"]))
    }

    /// The https URLs of `helperServices` (each service is an object with a `url`, or a list of them).
    static func helperServiceURLs(_ helperServices: JSONValue?) -> [URL] {
        guard case .object(let services)? = helperServices else { return [] }
        var urls: [URL] = []
        for name in services.keys.sorted() {
            let entries: [JSONValue]
            if case .array(let list)? = services[name] { entries = list } else { entries = [services[name]!] }
            for entry in entries {
                guard let text = entry["url"]?.stringValue, let url = URL(string: text),
                    url.scheme?.lowercased() == "https", !urls.contains(url)
                else { continue }
                urls.append(url)
            }
        }
        return urls
    }
}
