import Foundation
import NIOConcurrencyHelpers

/// What the emulator remembers about an issued token.
struct TokenRecord: Sendable, Equatable {
    /// The member the token belongs to.
    var username: String
    /// Which service issued it.
    var kind: TokenKind
    /// Expiry, epoch milliseconds.
    var expires: Int64
    /// Only to be sent over HTTPS.
    var ssl: Bool
    /// With client=referer: the Referer header every use must carry.
    var referer: String?
    /// With client=ip/requestip: the address every use must come from.
    var ip: String?
    /// For OAuth access tokens: the refresh token they came from (revoking it revokes them).
    var refreshToken: String? = nil
    /// For API keys: the key's privileges.
    var privileges: [String]? = nil
    /// For an app's own token (client credentials): the app's client ID (`portals/self`'s `appInfo`).
    var clientID: String? = nil
}

/// Why a presented token was not accepted.
enum TokenProblem: Error, Sendable, Equatable {
    /// Unknown token string.
    case unknown
    /// Past its expiry (or expired by `expireAllTokens`).
    case expired
    /// Referer or IP binding does not match.
    case bindingMismatch
    /// Issued by a service whose tokens this resource does not accept.
    case wrongKind(TokenKind)
}

/// Issues and checks tokens. Thread-safe.
final class TokenStore: Sendable {
    /// The clock expiry is judged by.
    let clock: EmulatorClock
    private let records = NIOLockedValueBox<[String: TokenRecord]>([:])
    private let revoked = NIOLockedValueBox<Set<String>>([])

    /// A store judging expiry by `clock`.
    init(clock: EmulatorClock) { self.clock = clock }

    /// Issues a token and returns the string and its record.
    func issue(_ record: TokenRecord) -> String {
        let token = Self.randomToken()
        records.withLockedValue { $0[token] = record }
        return token
    }

    /// The record of a token, if it was ever issued.
    func record(for token: String) -> TokenRecord? {
        records.withLockedValue { $0[token] }
    }

    /// Checks a token for a request; returns its record when it may be used.
    func validate(_ token: String, referer: String?, remoteIP: String?) -> Result<TokenRecord, TokenProblem> {
        guard let record = record(for: token) else { return .failure(.unknown) }
        if record.expires <= clock.nowMilliseconds { return .failure(.expired) }
        if let bound = record.referer, bound != referer { return .failure(.bindingMismatch) }
        if let bound = record.ip, bound != remoteIP { return .failure(.bindingMismatch) }
        return .success(record)
    }

    /// Makes every token issued so far expired.
    func expireAll() {
        let past = clock.nowMilliseconds - 1
        records.withLockedValue { records in
            for (key, record) in records where record.expires > past { records[key]?.expires = past }
        }
    }

    /// Revokes an OAuth access token, or, when `token` is a refresh token, every access token
    /// issued from it. Unknown tokens and tokens from generateToken or client_credentials
    /// (which cannot be revoked) are left alone.
    func revoke(_ token: String, isRefreshToken: Bool) {
        let gone = records.withLockedValue { records -> [String] in
            var gone: [String] = isRefreshToken ? [token] : []
            if records[token]?.kind == .oauth, records.removeValue(forKey: token) != nil { gone.append(token) }
            for (key, record) in records where record.refreshToken == token {
                records.removeValue(forKey: key)
                gone.append(key)
            }
            return gone
        }
        revoked.withLockedValue { $0.formUnion(gone) }
    }

    /// Whether `token` was revoked through ``revoke(_:)``.
    func isRevoked(_ token: String) -> Bool { revoked.withLockedValue { $0.contains(token) } }

    /// How many tokens were issued and are still remembered.
    var count: Int { records.withLockedValue { $0.count } }

    /// 48 random bytes, base64url without padding, with dots like real tokens have.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base64 = FormCoding.base64URL(bytes)
        let chars = Array(base64)
        return String(chars[0..<32]) + "." + String(chars[32...])
    }
}
