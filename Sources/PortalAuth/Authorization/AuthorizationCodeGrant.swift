import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An authorization code and what the token request needs with it.
public struct AuthorizationCodeGrant: Sendable {
    /// The code (single use, short-lived; never logged).
    public var code: String
    /// The exact `redirect_uri` the code was issued for.
    public var redirectURI: String
    /// The PKCE verifier matching the challenge that was sent.
    public var codeVerifier: String

    /// The token request's form parameters for this grant.
    public func tokenParameters(clientID: String) -> [(String, String)] {
        [
            ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code),
            ("redirect_uri", redirectURI), ("code_verifier", codeVerifier),
        ]
    }
}
