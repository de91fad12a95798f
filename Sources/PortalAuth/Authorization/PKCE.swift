#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Proof Key for Code Exchange (RFC 7636), S256 only.
///
/// The verifier is 64 bytes from OpenSSL's CSPRNG written in base64url (86 characters, inside
/// the 43-128 the RFC allows); the challenge is BASE64URL(SHA-256(verifier)).
public struct PKCE: Sendable, Equatable {
    /// The secret sent with the token request (never logged).
    public let codeVerifier: String
    /// The digest sent with the authorization request.
    public let codeChallenge: String
    /// Always `S256`: the plain method is never used.
    public var codeChallengeMethod: String { "S256" }

    /// A fresh verifier and its challenge.
    public init() throws {
        try self.init(verifier: PortalAuthCrypto.base64URL(PortalAuthCrypto.randomBytes(64)))
    }

    /// The challenge for a given verifier (43-128 characters of `A-Z a-z 0-9 - . _ ~`).
    public init(verifier: String) throws {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        guard (43...128).contains(verifier.count), verifier.allSatisfy(allowed.contains) else {
            throw PortalAuthError(
                .invalidArgument,
                "a PKCE code verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'")
        }
        codeVerifier = verifier
        codeChallenge = PortalAuthCrypto.base64URL(try PortalAuthCrypto.sha256(Array(verifier.utf8)))
    }

    /// A random `state` value (32 bytes, base64url) to match the answer to the request.
    public static func makeState() throws -> String {
        PortalAuthCrypto.base64URL(try PortalAuthCrypto.randomBytes(32))
    }
}
