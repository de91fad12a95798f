#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the answer to one attempt calls for (see ``AuthenticationManager/classify(_:of:provisional:)``).
enum AttemptOutcome {
    /// A successful answer.
    case done(TransportResponse)
    /// A redirect to follow.
    case redirect(status: Int, location: String)
    /// An ArcGIS challenge: 499, 498, or 403 `GWM_0003` to a request without a token.
    case arcGISChallenge(ArcGISError)
    /// HTTP authentication (401 with `WWW-Authenticate`).
    case httpAuthenticationChallenge(HTTPAuthenticationHeader)
    /// A TLS-level demand (server trust, a client certificate in the handshake) or a web
    /// server's HTTP demand for a client certificate; the error is what to throw if unanswered.
    case tlsDemand(NetworkAuthenticationChallenge.Kind, PortalAuthError)
    /// An identity-aware proxy in front of the host wants sign-in.
    case iapSignIn(IAPAuthenticationChallenge)
    /// The request failed.
    case failure(any Error)
}
