#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An access token and what a client must know to use it.
public struct TokenInfo: Sendable, Codable, Equatable {
    /// The token.
    public var accessToken: String
    /// When it expires, if known.
    public var expirationDate: Date?
    /// Whether it may only be sent over HTTPS.
    public var isSSLRequired: Bool

    /// Creates token information.
    public init(accessToken: String, expirationDate: Date?, isSSLRequired: Bool) {
        self.accessToken = accessToken
        self.expirationDate = expirationDate
        self.isSSLRequired = isSSLRequired
    }

    /// Whether the token expires within `interval` seconds of `now` (never, without an expiration date).
    public func expires(within interval: TimeInterval, of now: Date = Date()) -> Bool {
        guard let expirationDate else { return false }
        return expirationDate.timeIntervalSince(now) < interval
    }

    /// Whether the token has expired.
    public func isExpired(at now: Date = Date()) -> Bool { expires(within: 0, of: now) }

    /// Whether `token` can travel in an HTTP header and a query string as it is: not empty, and
    /// no control character (CR, LF and NUL end or split a header; the others are never in a token).
    public static func isUsableToken(_ token: String) -> Bool {
        !token.isEmpty && !token.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Checks a token that has just arrived from `issuer` (a server's answer) before anything
    /// prints, stores or sends it: it must be usable in a header (``isUsableToken(_:)``) and not
    /// already expired at `now` (an expired token is no sign-in).
    ///
    /// - Parameter issuer: who sent it, for the error, for example `the token service https://host/portal/...`.
    /// - Throws: ``PortalAuthError/Code/invalidResponse`` saying which check failed; the token
    ///   itself is never in the message.
    public func checkedAsIssued(by issuer: String, at now: Date = Date()) throws -> TokenInfo {
        guard Self.isUsableToken(accessToken) else {
            throw PortalAuthError(
                .invalidResponse,
                "\(issuer) sent a token that is empty or has control characters (CR, LF or NUL), unfit for an HTTP "
                    + "header: not used or stored",
                remedy: .reportToAdministrator(server: issuer))
        }
        if let expirationDate, !expirationDate.timeIntervalSince1970.isFinite {
            throw PortalAuthError(
                .invalidResponse,
                "\(issuer) sent a token whose lifetime is not a number of seconds: it was not used or stored",
                remedy: .reportToAdministrator(server: issuer))
        }
        // A lifetime of 0 seconds (expiring the moment it arrives) is no sign-in either.
        if let expirationDate, expirationDate <= now {
            throw PortalAuthError(
                .invalidResponse,
                "\(issuer) sent a token that had already expired when it arrived (it expires "
                    + "\(expirationDate.formatted(.iso8601)), the time here is \(now.formatted(.iso8601))): "
                    + "a clock here or there is wrong, or the server gives tokens no lifetime",
                remedy: .checkClock(server: issuer))
        }
        return self
    }

    enum CodingKeys: String, CodingKey { case accessToken, expirationDate, isSSLRequired }

    /// Reads token information back (from a credential store), refusing a token that could not
    /// be sent in a header (``isUsableToken(_:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        expirationDate = try container.decodeIfPresent(Date.self, forKey: .expirationDate)
        isSSLRequired = try container.decode(Bool.self, forKey: .isSSLRequired)
        guard Self.isUsableToken(accessToken) else {
            throw DecodingError.dataCorruptedError(
                forKey: .accessToken, in: container, debugDescription: "the token is empty or has control characters")
        }
    }
}

/// A credential that can be kept in a credential store: it has a kind, a server and a
/// JSON form (the secret kept in the store).
public protocol StorableCredential: Sendable, Codable {
    /// The stable kind name stored in the `kind` attribute, for example `token`.
    static var kind: String { get }
    /// The user name, when known (stored as a non-secret attribute).
    var username: String? { get }
}

/// A credential for ArcGIS token-based security: ArcGIS tokens, pregenerated tokens, OAuth.
///
/// It belongs to one ``ServerContext`` and is only attached to requests inside it.
public protocol ArcGISCredential: StoredCredential {
    /// The server context the credential belongs to.
    var serverContext: ServerContext { get }
    /// The current token (it may be close to expiry; the manager renews it through ``renewed(using:)``).
    var tokenInfo: TokenInfo { get }
    /// The referer the token is bound to, sent as the `Referer` header with it.
    var referer: String? { get }
    /// How long before expiry the manager renews the token (5 minutes by default).
    var renewalLeeway: TimeInterval { get }
    /// The portal a derived credential (a federated server token) was obtained from.
    var derivedFrom: ServerContext? { get }
    /// Returns a renewed credential without asking the user, or `nil` when that is impossible
    /// (for example a token credential whose password is not in memory).
    func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)?
    /// What signing in again for this credential takes, for the remedy of errors that need it
    /// (by default a username/password sign-in to ``serverContext``, or to the portal of
    /// ``derivedFrom``).
    var howToSignIn: PortalAuthError.SignIn { get }
}

extension ArcGISCredential {
    /// No referer by default.
    public var referer: String? { nil }
    /// Five minutes.
    public var renewalLeeway: TimeInterval { 300 }
    /// Not derived by default.
    public var derivedFrom: ServerContext? { nil }
    /// A username/password sign-in to ``serverContext`` (to ``derivedFrom`` for a derived credential).
    public var howToSignIn: PortalAuthError.SignIn {
        derivedFrom.map { .token($0, username: username) }
            ?? PortalAuthError.SignIn(kind: Self.kind, serverContext: serverContext, username: username)
    }
    /// Cannot be renewed by default.
    public func renewed(using services: AuthenticationServices) async throws -> (any ArcGISCredential)? { nil }
}

/// A credential whose tokens a portal can revoke (OAuth user credentials).
public protocol RevocableCredential: ArcGISCredential {
    /// Revokes the credential's tokens at its portal.
    func revoke(using services: AuthenticationServices) async throws
}

/// A credential for the network layer (HTTP authentication, client certificates, server trust),
/// bound to a host and port.
public protocol NetworkCredential: StoredCredential {
    /// The host-level context (`scheme://host:port`) the credential is for.
    var host: ServerContext { get }
    /// Adds what this credential contributes to a request's transport options.
    func apply(to options: inout TransportOptions)
}

/// A federated ArcGIS Server token, obtained from the owning portal's `generateToken` with the
/// portal token and `serverUrl`; the manager makes and caches these itself.
public struct FederatedTokenCredential: ArcGISCredential, Equatable {
    /// `federated-token`.
    public static let kind = "federated-token"
    /// The ArcGIS Server root.
    public let serverContext: ServerContext
    /// The portal it was derived from.
    public let portal: ServerContext
    /// The server token.
    public let tokenInfo: TokenInfo
    /// The portal user.
    public let username: String?
    /// The referer the portal token was bound to, if any.
    public let referer: String?
    /// The portal.
    public var derivedFrom: ServerContext? { portal }

    /// Creates a federated token credential.
    public init(
        serverContext: ServerContext, portal: ServerContext, tokenInfo: TokenInfo, username: String?, referer: String?
    ) {
        self.serverContext = serverContext
        self.portal = portal
        self.tokenInfo = tokenInfo
        self.username = username
        self.referer = referer
    }
}
