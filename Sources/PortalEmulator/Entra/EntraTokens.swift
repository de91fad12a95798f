import Foundation
import NIOConcurrencyHelpers

/// A token the emulated Entra ID issued: an access token or an ID token.
struct EntraToken: Sendable, Equatable {
    /// `access` or `id`.
    enum Kind: String, Sendable { case access, id }
    var kind: Kind
    /// Who signed in.
    var username: String
    /// The app (audience).
    var clientID: String
    /// Expiry, epoch milliseconds.
    var expires: Int64
}

/// Tokens, codes and refresh tokens of the emulated identity provider. Thread-safe.
final class EntraTokens: Sendable {
    /// Authorization codes and refresh tokens (the same single-use and expiry rules as the portal's).
    let grants: OAuthGrants
    private let tokens = NIOLockedValueBox<[String: EntraToken]>([:])
    private let clock: EmulatorClock

    /// Tokens whose expiry `clock` judges.
    init(clock: EmulatorClock) {
        self.clock = clock
        self.grants = OAuthGrants(clock: clock)
    }

    /// Issues a token.
    func issue(_ token: EntraToken, claims: [(String, JSONValue)]) -> String {
        let string = Self.jwt(claims)
        tokens.withLockedValue { $0[string] = token }
        return string
    }

    /// The token, if it was issued and has not expired.
    func valid(_ string: String) -> EntraToken? {
        guard let token = tokens.withLockedValue({ $0[string] }), token.expires > clock.nowMilliseconds else {
            return nil
        }
        return token
    }

    /// Whether `string` was ever issued (expired or not).
    func isKnown(_ string: String) -> Bool { tokens.withLockedValue { $0[string] != nil } }

    /// Makes every access and ID token expired.
    func expireAll() {
        let past = clock.nowMilliseconds - 1
        tokens.withLockedValue { tokens in for key in tokens.keys { tokens[key]?.expires = past } }
    }

    /// An unsigned JWT-shaped string (`header.payload.signature`) carrying `claims` and a random
    /// `jti`, so every token differs and clients can read the claims as they would Entra's.
    static func jwt(_ claims: [(String, JSONValue)]) -> String {
        let header = JSONValue.object([("typ", .string("JWT")), ("alg", .string("none")), ("kid", .string("emulator"))])
        let payload = JSONValue.object(claims + [("jti", .string(TokenStore.randomToken()))])
        return FormCoding.base64URL(header.serialized(pretty: false).utf8) + "."
            + FormCoding.base64URL(payload.serialized(pretty: false).utf8)
            + "." + FormCoding.base64URL(TokenStore.randomToken().utf8)
    }
}
