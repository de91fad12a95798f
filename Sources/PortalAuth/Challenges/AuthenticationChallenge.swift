#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A challenge routed by the ``AuthenticationManager`` to the handler plugins.
public enum AuthenticationChallenge: Sendable {
    /// An ArcGIS token challenge.
    case arcGIS(ArcGISAuthenticationChallenge)
    /// A network challenge.
    case network(NetworkAuthenticationChallenge)
    /// An identity-aware proxy (Entra Application Proxy) in front of the host wants sign-in.
    case iap(IAPAuthenticationChallenge)

    /// The URL of the request that was challenged.
    public var requestURL: URL {
        switch self {
        case .arcGIS(let c): return c.requestURL
        case .network(let c): return c.requestURL
        case .iap(let c): return c.requestURL
        }
    }
}

extension AuthenticationChallenge {
    /// A credential a handler answers with, of the kind of the challenge it answers.
    public enum Credential: Sendable {
        /// An ArcGIS credential, kept in the ``ArcGISCredentialStore``.
        case arcGIS(any ArcGISCredential)
        /// A network credential, kept in the ``NetworkCredentialStore``.
        case network(any NetworkCredential)
        /// An IAP credential, kept in the ``IAPCredentialStore``.
        case iap(any IAPAuthorizationCredential)
    }

    /// A handler's answer to a challenge: the SDK's `continueWithCredential(_:)`,
    /// `continueWithoutCredential` and `cancel`.
    ///
    /// The SDK nests a disposition in each challenge type its handlers receive
    /// (`ArcGISAuthenticationChallenge.Disposition`, `NetworkAuthenticationChallenge.Disposition`).
    /// Here every plugin receives an ``AuthenticationChallenge`` (one ordered chain of plugins answers
    /// all kinds, so a program composes plugins instead of writing one handler per kind), so the
    /// disposition nests in that type and carries a ``Credential`` of the matching kind.
    public enum Disposition: Sendable {
        /// Store this credential and retry the request once with it.
        case continueWithCredential(Credential)
        /// Let the request fail with the server's answer.
        case continueWithoutCredential
        /// Cancel the request.
        case cancel
    }
}

extension PortalAuthError {
    /// The error for an ArcGIS error body that `url` answered (one that is not a challenge to
    /// answer): the URL with its scheme, then the code, message and details, quoted as the server
    /// wrote them. A 404 says the URL leads to nothing there (a typo in a service, layer or
    /// operation, or a URL of the wrong kind), and its remedy is to check the URL, as is that of
    /// the 400 "Invalid URL" a portal answers for a path it does not have.
    package static func arcGIS(_ error: ArcGISError, from url: URL) -> PortalAuthError {
        let details = error.details.isEmpty ? "" : " (" + error.details.joined(separator: "; ") + ")"
        let notFound = error.code == 404
        let invalidURL = error.code == 400 && error.message.lowercased() == "invalid url"
        return PortalAuthError(
            .arcGISError,
            "\(ServerContext.describeWithScheme(url)) answered ArcGIS error \(error.code)"
                + "\(notFound ? " (not found: no such service, layer or operation there)" : ""): "
                + "\(error.message)\(details)",
            remedy: notFound || invalidURL ? .checkURL : .none, cause: error.cause)
    }
}
