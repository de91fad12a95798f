#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A challenge from an ArcGIS server: the resource needs a token (499), the token was
/// refused (498), or the anonymous user may not see it (403 `GWM_0003` without a token).
public struct ArcGISAuthenticationChallenge: Sendable {
    /// The URL of the request that was challenged.
    public var requestURL: URL
    /// The server context a credential must be obtained for (for a federated server, its portal).
    public var serverContext: ServerContext
    /// The ArcGIS error that raised the challenge (a synthetic 499 when a token expired before use).
    public var error: ArcGISError
    /// The credential that was used and refused, if any.
    public var previousCredential: (any ArcGISCredential)?
    /// The token service to use, when it is known (from `/rest/info`); otherwise the plugin asks
    /// ``AuthenticationServices/tokenServiceURL(for:)``.
    public var tokenServiceURL: URL?

    /// Creates a challenge.
    public init(
        requestURL: URL, serverContext: ServerContext, error: ArcGISError,
        previousCredential: (any ArcGISCredential)? = nil, tokenServiceURL: URL? = nil
    ) {
        self.requestURL = requestURL
        self.serverContext = serverContext
        self.error = error
        self.previousCredential = previousCredential
        self.tokenServiceURL = tokenServiceURL
    }
}
