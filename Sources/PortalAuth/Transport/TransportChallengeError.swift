#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An error that carries a ``TransportChallenge`` a network handler may answer: thrown by
/// ``CurlTransport`` (or another ``HTTPTransport``) and caught by the ``AuthenticationManager``,
/// which hands the challenge to the plugins. A plugin that sends requests through a transport of
/// its own catches it to tell a TLS demand (a server's untrusted certificate, a request for a
/// client certificate) from another failure; anything it reports is ``error``.
public struct TransportChallengeError: Error, Sendable {
    /// The challenge.
    public var challenge: TransportChallenge
    /// The error to report when no handler answers it.
    public var error: PortalAuthError
    /// Creates the error.
    public init(challenge: TransportChallenge, error: PortalAuthError) {
        self.challenge = challenge
        self.error = error
    }
}
