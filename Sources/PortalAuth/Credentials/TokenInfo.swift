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
