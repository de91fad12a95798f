public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An ArcGIS token generated from a username and password by a `generateToken` service.
///
/// The password is kept in memory only (it is not serialized) so the token can be regenerated
/// before it expires; a credential read back from a store has no password, and when its token
/// expires its plugin is challenged again.
public struct TokenCredential: ArcGISCredential, Equatable {
    /// `token`.
    public static let kind = "token"
    /// The portal or ArcGIS Server the token is for.
    public let serverContext: ServerContext
    /// The token service that issued it.
    public let tokenServiceURL: URL
    /// The user.
    public let username: String?
    /// The token.
    public let tokenInfo: TokenInfo
    /// The referer the token is bound to (`client=referer`), sent as the `Referer` header with it;
    /// nil for a token bound to the address the requests come from (`client=requestip`).
    public let referer: String?
    /// The token lifetime asked for, in minutes (servers cap it).
    public let tokenExpirationMinutes: Int
    /// Whether the portal's own generateToken issued the token (not an ArcGIS Server's).
    public var isIssuedByPortal: Bool { serverContext.isPortalTokenService(tokenServiceURL) }
    /// The password, in memory only.
    private(set) var password: String? = nil

    enum CodingKeys: String, CodingKey {
        // Stored items keep the key "expirationMinutes".
        case serverContext, tokenServiceURL, username, tokenInfo, referer, tokenExpirationMinutes = "expirationMinutes"
    }

    /// The referer earlier versions bound every token to when none was given. Credentials stored
    /// with it keep working: the manager sends a credential's referer with its token and renews it
    /// with the same binding. New tokens are bound to the requesting IP address unless a referer is given.
    public static let legacyReferer = "portal-auth"

    /// Creates a credential from parts (no request is made).
    public init(
        serverContext: ServerContext, tokenServiceURL: URL, username: String, tokenInfo: TokenInfo, referer: String?,
        tokenExpirationMinutes: Int, password: String? = nil
    ) {
        self.serverContext = serverContext
        self.tokenServiceURL = tokenServiceURL
        self.username = username
        self.tokenInfo = tokenInfo
        self.referer = referer
        self.tokenExpirationMinutes = tokenExpirationMinutes
        self.password = password
    }

    /// Creates a credential from parts (no request is made), with the lifetime's earlier label.
    @available(
        *, deprecated,
        renamed: "init(serverContext:tokenServiceURL:username:tokenInfo:referer:tokenExpirationMinutes:password:)"
    )
    public init(
        serverContext: ServerContext, tokenServiceURL: URL, username: String, tokenInfo: TokenInfo, referer: String?,
        expirationMinutes: Int, password: String? = nil
    ) {
        self.init(
            serverContext: serverContext, tokenServiceURL: tokenServiceURL, username: username, tokenInfo: tokenInfo,
            referer: referer, tokenExpirationMinutes: expirationMinutes, password: password)
    }

    /// The token lifetime asked for, in minutes, under its earlier name.
    @available(*, deprecated, renamed: "tokenExpirationMinutes")
    public var expirationMinutes: Int { tokenExpirationMinutes }

    /// Whether the password is held in memory (so the token can be regenerated silently).
    public var hasPassword: Bool { password != nil }

    /// With its password in memory it renews itself; stored (without it), only an unattended
    /// sign-in renews it (a kept password), or it ends with its token.
    public var renewal: CredentialRenewal { hasPassword ? .renewsItself : .needsUnattendedSignIn }

    /// Generates a token: `POST {tokenServiceURL}` with `username`, `password`, the binding,
    /// `expiration` and `f=json`, over HTTPS only.
    ///
    /// Without a referer the token is bound to the address the request comes from
    /// (`client=requestip`): it works as it is in `?token=`, `X-Esri-Authorization` and
    /// `Authorization` from any program on this machine (curl, GDAL, python), with no other header.
    /// With a referer (`client=referer`) it works only when that `Referer` is sent with it.
    ///
    /// - Parameters:
    ///   - referer: the referer to bind the token to; nil binds it to the requesting IP address.
    ///   - tokenExpirationMinutes: the token lifetime to ask for (servers cap it).
    ///   - keepPassword: keep the password in memory so the token is regenerated before expiry.
    public static func credential(
        for serverContext: ServerContext, tokenServiceURL: URL, username: String, password: String,
        referer: String? = nil, tokenExpirationMinutes: Int = 60, keepPassword: Bool = true,
        services: AuthenticationServices
    ) async throws -> TokenCredential {
        guard !username.isEmpty else {
            throw PortalAuthError(.invalidArgument, "the username is empty", remedy: .provide(.username))
        }
        guard !password.isEmpty else {
            throw PortalAuthError(.secretMissing, "the password is empty", remedy: .provide(.password))
        }
        if let referer { try checkReferer(referer) }
        // The password goes only to the context's own token service (or ArcGIS Online's), without a query.
        guard serverContext.acceptsTokenService(tokenServiceURL) else {
            throw PortalAuthError(
                .insecureTransport,
                "refusing to send the password for \(serverContext) to \(ServerContext.describe(tokenServiceURL)), not "
                    + "one of its own token services",
                remedy: .signIn(.token(serverContext)))
        }
        var parameters = [("username", username), ("password", password)]
        if let referer {
            parameters += [("client", "referer"), ("referer", referer)]
        } else {
            parameters.append(("client", "requestip"))
        }
        parameters.append(("expiration", String(tokenExpirationMinutes)))
        let json = try await requestToken(
            tokenServiceURL, parameters, serverContext: serverContext, username: username, services: services)
        guard let token = json["token"]?.stringValue, !token.isEmpty else {
            throw PortalAuthError(
                .invalidResponse,
                "the token service \(tokenServiceURL.host() ?? "") answered without a token: it may not be an ArcGIS "
                    + "generateToken service",
                remedy: .checkURL)
        }
        let issuer = "the token service \(ServerContext.describe(tokenServiceURL))"
        let expires = try json.lifetime("expires", from: issuer).map { Date(timeIntervalSince1970: $0 / 1000) }
        let info = try TokenInfo(
            accessToken: token, expirationDate: expires, isSSLRequired: json["ssl"]?.boolValue ?? false
        ).checkedAsIssued(by: issuer)
        return TokenCredential(
            serverContext: serverContext, tokenServiceURL: tokenServiceURL, username: username, tokenInfo: info,
            referer: referer, tokenExpirationMinutes: tokenExpirationMinutes, password: keepPassword ? password : nil)
    }

    /// Posts the sign-in to the token service; a refused username or password is
    /// ``PortalAuthError/Code/authenticationFailed``.
    private static func requestToken(
        _ tokenServiceURL: URL, _ parameters: [(String, String)], serverContext: ServerContext, username: String,
        services: AuthenticationServices
    ) async throws -> JSONValue {
        do {
            return try await services.postForm(tokenServiceURL, parameters)
        } catch let error as PortalAuthError {
            if case .arcGIS(let code, _, let message, let details)? = error.cause,
                code == 400 || code == 401 || code == 403,
                (details + [message]).contains(where: {
                    $0.lowercased().contains("invalid username or password")
                        || $0.lowercased().contains("unable to generate token")
                })
            {
                throw PortalAuthError(
                    .authenticationFailed,
                    "\(serverContext) refused the username or password for \(username)",
                    remedy: .signIn(.token(serverContext, username: username)), cause: error.cause)
            }
            throw error
        }
    }

    /// Generates a token for the portal or ArcGIS Server that `url` names, as the Maps SDK's
    /// `TokenCredential.credential(for:username:password:tokenExpirationMinutes:)` does: the server
    /// context comes from the URL (an ArcGIS Server when it has `/rest`, `/tokens` or `/admin`, a
    /// portal otherwise) and its token service from the context's `info` endpoint
    /// (``AuthenticationServices/tokenServiceURL(for:isPortal:)``).
    ///
    /// - Parameters:
    ///   - url: the portal, the server, or a URL on it.
    ///   - referer: the referer to bind the token to; nil binds it to the requesting IP address.
    ///   - tokenExpirationMinutes: the token lifetime to ask for (servers cap it).
    ///   - keepPassword: keep the password in memory so the token is regenerated before expiry.
    ///   - services: the manager's ``AuthenticationManager/services``.
    public static func credential(
        for url: URL, username: String, password: String, referer: String? = nil, tokenExpirationMinutes: Int = 60,
        keepPassword: Bool = true, services: AuthenticationServices
    ) async throws -> TokenCredential {
        let serverContext = try ServerContext(url: url)
        let isPortal = ServerContext.arcGISServerRoot(of: url) == nil
        let tokenServiceURL = await services.tokenServiceURL(for: serverContext, isPortal: isPortal)
        return try await credential(
            for: serverContext, tokenServiceURL: tokenServiceURL, username: username, password: password,
            referer: referer, tokenExpirationMinutes: tokenExpirationMinutes, keepPassword: keepPassword,
            services: services)
    }

    /// Generates a token, with the lifetime's earlier label.
    @available(
        *, deprecated,
        renamed:
            "credential(for:tokenServiceURL:username:password:referer:tokenExpirationMinutes:keepPassword:services:)"
    )
    public static func credential(
        for serverContext: ServerContext, tokenServiceURL: URL, username: String, password: String,
        referer: String? = nil, expirationMinutes: Int, keepPassword: Bool = true,
        services: AuthenticationServices
    ) async throws -> TokenCredential {
        try await credential(
            for: serverContext, tokenServiceURL: tokenServiceURL, username: username, password: password,
            referer: referer, tokenExpirationMinutes: expirationMinutes, keepPassword: keepPassword, services: services)
    }

    /// Refuses a referer that cannot bind a token: empty (servers answer "'referer' must be
    /// specified"), or with control characters (it travels in the `Referer` header).
    public static func checkReferer(_ referer: String) throws {
        guard !referer.isEmpty else {
            throw PortalAuthError(
                .invalidArgument,
                "the referer is empty, and the server refuses a token bound to an empty referer (no referer binds it "
                    + "to this IP)",
                remedy: .provide(.referer))
        }
        guard !referer.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PortalAuthError(
                .invalidArgument,
                "the referer contains control characters (CR, LF or NUL), which cannot be sent in the Referer header",
                remedy: .provide(.referer))
        }
    }

    /// Regenerates the token when the password is in memory; otherwise `nil` (the plugin is challenged).
    public func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? {
        guard let password, let username else { return nil }
        return try await TokenCredential.credential(
            for: serverContext, tokenServiceURL: tokenServiceURL, username: username, password: password,
            referer: referer, tokenExpirationMinutes: tokenExpirationMinutes, services: services)
    }

    /// Compares everything but the password.
    public static func == (lhs: TokenCredential, rhs: TokenCredential) -> Bool {
        lhs.serverContext == rhs.serverContext && lhs.tokenServiceURL == rhs.tokenServiceURL
            && lhs.username == rhs.username
            && lhs.tokenInfo == rhs.tokenInfo && lhs.referer == rhs.referer
            && lhs.tokenExpirationMinutes == rhs.tokenExpirationMinutes
    }
}
