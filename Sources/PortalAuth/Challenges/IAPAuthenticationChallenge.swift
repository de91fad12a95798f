import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An identity-aware proxy (IAP) in front of a host wants sign-in: it redirected a request to its identity provider,
/// or answered 401 with `WWW-Authenticate: Bearer`.
public struct IAPAuthenticationChallenge: Sendable {
    /// The request that was refused.
    public var requestURL: URL
    /// The HTTP status of the refusal (302/303/307 or 401).
    public var status: Int
    /// Where a redirect pointed (the identity provider's sign-in page), if it was one.
    public var location: URL?
    /// The IAP credential the request carried, if any.
    public var previousCredential: (any IAPAuthorizationCredential)?

    /// Whether `response` can be a proxy's sign-in demand at all: a redirect (302, 303, 307) or a
    /// 401 with `WWW-Authenticate: Bearer`. Only those are looked at further (``IAPResolver``), so
    /// that any other answer costs nothing.
    static func mayBeSignInDemand(_ response: TransportResponse) -> (redirect: Bool, bearer401: Bool)? {
        let isRedirect = [302, 303, 307].contains(response.status)
        let isBearer401 =
            response.status == 401
            && response.headers(named: "WWW-Authenticate").contains { $0.lowercased().hasPrefix("bearer") }
        return isRedirect || isBearer401 ? (isRedirect, isBearer401) : nil
    }

    /// Where `response` (to a request for `url`) sends an API client to sign in: a redirect to an
    /// OAuth/OpenID authorization page (a path ending in `/authorize`) on another origin, as
    /// Entra Application Proxy answers requests without a token. Nil for any other answer.
    static func signInRedirect(from url: URL, response: TransportResponse) -> URL? {
        guard [302, 303, 307].contains(response.status),
            let location = response.header("Location").flatMap({ URL(string: $0, relativeTo: url)?.absoluteURL }),
            (try? ServerContext.host(of: location)) != (try? ServerContext.host(of: url)),
            location.path(percentEncoded: false).lowercased().hasSuffix("/authorize")
        else { return nil }
        return location
    }

    /// Creates a challenge.
    public init(
        requestURL: URL, status: Int, location: URL?, previousCredential: (any IAPAuthorizationCredential)? = nil
    ) {
        self.requestURL = requestURL
        self.status = status
        self.location = location
        self.previousCredential = previousCredential
    }
}
