import Foundation
import NIOConcurrencyHelpers

/// An authorization code the portal handed to a signed-in user's browser.
struct AuthorizationCodeGrant: Sendable, Equatable {
    /// The app that asked for it.
    var clientID: String
    /// The redirect URI it was issued for (redemption must name the same one).
    var redirectURI: String
    /// The S256 `code_challenge`; nil for a confidential app that sent none.
    var codeChallenge: String?
    /// Who signed in.
    var username: String
    /// Expiry, epoch milliseconds.
    var expires: Int64
    /// The `expiration` (minutes) asked for at authorize time: the refresh token's lifetime.
    var expirationMinutes: Int?
    /// The `scope` asked for at authorize time (Entra: a token request may omit it); nil for the portal.
    var scope: String? = nil
}

/// A checked authorize request waiting for the user to sign in (what `oauth_state` names).
struct PendingSignIn: Sendable, Equatable {
    /// The app that asked.
    var clientID: String
    /// Where the answer goes.
    var redirectURI: String
    /// `code` (authorization code) or `token` (implicit: the access token in the redirect's fragment).
    var responseType: String
    /// The client's `state`, handed back unchanged.
    var state: String?
    /// The S256 `code_challenge`, if the client sent one.
    var codeChallenge: String?
    /// The `expiration` (minutes) asked for.
    var expirationMinutes: Int?
    /// Until when the sign-in may be finished, epoch milliseconds.
    var expires: Int64 = 0
}

/// A refresh token issued by `oauth2/token`.
struct RefreshTokenGrant: Sendable, Equatable {
    /// Who it belongs to.
    var username: String
    /// The app it was issued to (only that app may redeem it).
    var clientID: String
    /// Expiry, epoch milliseconds.
    var expires: Int64
}

/// Authorization codes and refresh tokens. Thread-safe. Access tokens live in ``TokenStore``.
final class OAuthGrants: Sendable {
    private let clock: EmulatorClock
    private let codes = NIOLockedValueBox<[String: AuthorizationCodeGrant]>([:])
    private let refreshTokens = NIOLockedValueBox<[String: RefreshTokenGrant]>([:])
    private let signIns = NIOLockedValueBox<[String: PendingSignIn]>([:])

    /// How long a sign-in page's `oauth_state` stays usable.
    static let signInLifetimeMilliseconds: Int64 = 15 * 60 * 1000
    /// The most sign-ins kept waiting at once (the oldest are dropped first).
    static let maximumPendingSignIns = 1000

    /// Codes and refresh tokens whose expiry `clock` judges.
    init(clock: EmulatorClock) { self.clock = clock }

    /// Remembers a new code and returns it.
    func issueCode(_ grant: AuthorizationCodeGrant) -> String {
        let code = TokenStore.randomToken().replacingOccurrences(of: ".", with: "")
        codes.withLockedValue { $0[code] = grant }
        return code
    }

    /// Takes a code out: codes are single-use, whether the redemption succeeds or not.
    func redeemCode(_ code: String) -> AuthorizationCodeGrant? {
        codes.withLockedValue { $0.removeValue(forKey: code) }
    }

    /// Makes every outstanding code expired.
    func expireCodes() {
        let past = clock.nowMilliseconds - 1
        codes.withLockedValue { codes in
            for key in codes.keys { codes[key]?.expires = past }
        }
    }

    /// Remembers a sign-in waiting for the user and returns its `oauth_state`.
    func issueSignInState(_ pending: PendingSignIn) -> String {
        var pending = pending
        let now = clock.nowMilliseconds
        pending.expires = now + Self.signInLifetimeMilliseconds
        let key = TokenStore.randomToken().replacingOccurrences(of: ".", with: "")
        signIns.withLockedValue { signIns in
            signIns = signIns.filter { $0.value.expires > now }
            while signIns.count >= Self.maximumPendingSignIns,
                let oldest = signIns.min(by: { $0.value.expires < $1.value.expires })
            {
                signIns.removeValue(forKey: oldest.key)
            }
            signIns[key] = pending
        }
        return key
    }

    /// The sign-in an `oauth_state` names, while it has not expired or finished.
    func pendingSignIn(_ key: String) -> PendingSignIn? {
        let now = clock.nowMilliseconds
        return signIns.withLockedValue { $0[key] }.flatMap { $0.expires > now ? $0 : nil }
    }

    /// Ends a sign-in: its `oauth_state` cannot be used again.
    func finishSignIn(_ key: String) {
        _ = signIns.withLockedValue { $0.removeValue(forKey: key) }
    }

    /// Remembers a new refresh token and returns it.
    func issueRefreshToken(_ grant: RefreshTokenGrant) -> String {
        let token = TokenStore.randomToken()
        refreshTokens.withLockedValue { $0[token] = grant }
        return token
    }

    /// The grant behind a refresh token, if it was issued and not revoked.
    func refreshToken(_ token: String) -> RefreshTokenGrant? {
        refreshTokens.withLockedValue { $0[token] }
    }

    /// Forgets a refresh token; true when it was known.
    @discardableResult
    func revokeRefreshToken(_ token: String) -> Bool {
        refreshTokens.withLockedValue { $0.removeValue(forKey: token) != nil }
    }

    /// Forgets every refresh token and returns them (their access tokens are revoked by the caller).
    func revokeAllRefreshTokens() -> [String] {
        refreshTokens.withLockedValue { tokens in
            let all = Array(tokens.keys)
            tokens.removeAll()
            return all
        }
    }
}
