import Foundation
import Synchronization

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
    private let records = Mutex<[String: TokenRecord]>([:])

    /// Current time in epoch milliseconds.
    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// Issues a token and returns the string and its record.
    func issue(_ record: TokenRecord) -> String {
        let token = Self.randomToken()
        records.withLock { $0[token] = record }
        return token
    }

    /// The record of a token, if it was ever issued.
    func record(for token: String) -> TokenRecord? {
        records.withLock { $0[token] }
    }

    /// Checks a token for a request; returns its record when it may be used.
    func validate(_ token: String, referer: String?, remoteIP: String?) -> Result<TokenRecord, TokenProblem> {
        guard let record = record(for: token) else { return .failure(.unknown) }
        if record.expires <= Self.nowMilliseconds() { return .failure(.expired) }
        if let bound = record.referer, bound != referer { return .failure(.bindingMismatch) }
        if let bound = record.ip, bound != remoteIP { return .failure(.bindingMismatch) }
        return .success(record)
    }

    /// Makes every token issued so far expired.
    func expireAll() {
        let past = Self.nowMilliseconds() - 1
        records.withLock { records in
            for (key, record) in records where record.expires > past { records[key]?.expires = past }
        }
    }

    /// How many tokens were issued and are still remembered.
    var count: Int { records.withLock { $0.count } }

    /// 48 random bytes, base64url without padding, with dots like real tokens have.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let chars = Array(base64)
        return String(chars[0..<32]) + "." + String(chars[32...])
    }
}
