import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A credential for an identity-aware proxy in front of a set of hosts (Microsoft Entra
/// Application Proxy): every request to a host it ``canBeUsed(for:)`` carries
/// `Authorization: Bearer <token>`, whatever ArcGIS credential the request also carries.
///
/// Unlike an ``ArcGISCredential`` it is not bound to one server context but to host patterns,
/// so the store keeps it under a ``iapIdentifier`` and asks each credential whether it applies.
public protocol IAPAuthorizationCredential: StoredCredential {
    /// Identifies the sign-in (the identity provider's token endpoint and the client ID); stored
    /// as the item's `server` attribute. A new sign-in with the same identifier replaces the old.
    var iapIdentifier: String { get }
    /// Whether requests to `url` carry this credential (the URL's host is behind the proxy).
    func canBeUsed(for url: URL) -> Bool
    /// The bearer token presented to the proxy, with its expiry.
    var tokenInfo: TokenInfo { get }
    /// How long before expiry the token is renewed (5 minutes by default).
    var renewalLeeway: TimeInterval { get }
    /// Returns a renewed credential without asking the user (refresh token), or nil when that is impossible.
    func renewed(using services: AuthenticationServices) async throws -> (any IAPAuthorizationCredential)?
    /// The identity provider's sign-out page, opened in the browser when the credential is invalidated.
    var logoutURL: URL? { get }
    /// What signing in again takes, for the remedy of errors that need it.
    var howToSignIn: PortalAuthError.SignIn { get }
}

extension IAPAuthorizationCredential {
    /// Five minutes.
    public var renewalLeeway: TimeInterval { 300 }
    /// No sign-out page by default.
    public var logoutURL: URL? { nil }
    /// A sign-in of this kind, with no configuration file known.
    public var howToSignIn: PortalAuthError.SignIn { PortalAuthError.SignIn(kind: Self.kind) }
    /// Cannot be renewed by default.
    public func renewed(using services: AuthenticationServices) async throws -> (any IAPAuthorizationCredential)? {
        nil
    }
}

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

/// Finds, renews and attaches IAP credentials. Renewal is single-flight across tasks and,
/// for persistent stores, across processes (``RenewOnce``).
final class IAPAuthorization: Sendable {
    let store: IAPCredentialStore
    /// Services over the transport without IAP credentials (the identity provider is not behind the proxy).
    let services: AuthenticationServices
    private let renewals: RenewOnce
    /// Whether renewals take a lock shared with other processes (the store is persistent).
    var usesCrossProcessLocks: Bool { renewals.usesCrossProcessLocks }

    init(store: IAPCredentialStore, services: AuthenticationServices, usesCrossProcessLocks: Bool) {
        self.store = store
        self.services = services
        self.renewals = RenewOnce(usesCrossProcessLocks: usesCrossProcessLocks, services: services)
    }

    /// The credential for `url`, renewed when close to expiry; nil when none applies, or when it
    /// expired and cannot be renewed.
    func credentialForUse(_ url: URL) async throws -> (any IAPAuthorizationCredential)? {
        guard let credential = try await store.credential(for: url) else { return nil }
        guard credential.tokenInfo.expires(within: credential.renewalLeeway) else { return credential }
        return try await renew(credential)
    }

    /// Renews once across tasks and processes; returns the renewed credential, the old one while
    /// it has not expired, or nil once it has.
    ///
    /// - Parameter refused: the proxy refused this credential's token: renew it even though it
    ///   has not expired (unless another task or process already replaced it).
    func renew(
        _ credential: any IAPAuthorizationCredential, refused: Bool = false
    ) async throws -> (any IAPAuthorizationCredential)? {
        try await renewals.run(Renewal(credential: credential, store: store, refused: refused, renewsStoredCopy: true))
            as? any IAPAuthorizationCredential
    }
}

/// A transport that adds the IAP credential's `Authorization: Bearer` header to every request
/// whose host is behind an identity-aware proxy, and to no other. It never sends the token over
/// plain http.
struct IAPAuthorizingTransport: HTTPTransport {
    let base: any HTTPTransport
    let iapAuthorization: IAPAuthorization

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        var request = request
        if request.header("Authorization") == nil,
            let credential = try await iapAuthorization.credentialForUse(request.url)
        {
            guard request.url.scheme?.lowercased() == "https" else {
                throw PortalAuthError(
                    .insecureTransport,
                    "refusing to send the identity-aware proxy's token to \(ServerContext.describe(request.url)) over "
                        + "plain http",
                    remedy: .useHTTPS(url: request.url))
            }
            var unchanged = options
            credential.attach(to: &request, options: &unchanged)
        }
        return try await base.send(request, options: options)
    }

    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        try await base.serverCertificate(host: host, port: port)
    }
}

/// A transport that gives every request the stored network credentials of its host (a trusted
/// server's pinned key, a client certificate, an HTTP password) unless the request brings its own,
/// so plugins' own requests (token services, identity providers) reach such hosts too.
struct NetworkCredentialTransport: HTTPTransport {
    let base: any HTTPTransport
    let store: NetworkCredentialStore

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        var stored: [any NetworkCredential] = []
        if let host = try? ServerContext.host(of: request.url) { stored = try await store.credentials(for: host) }
        let merged = Self.merged(stored, under: options)
        return try await base.send(request, options: merged)
    }

    /// What a request to a host sends: the host's stored network credentials, each field replaced
    /// by the request's `own` where it brings one. The loop reads what it sent from here.
    static func merged(_ stored: [any NetworkCredential], under own: TransportOptions) -> TransportOptions {
        var merged = TransportOptions()
        for credential in stored { credential.apply(to: &merged) }
        if let own = own.httpAuthentication { merged.httpAuthentication = own }
        if let own = own.clientCertificate { merged.clientCertificate = own }
        if let own = own.pinnedPublicKey { merged.pinnedPublicKey = own }
        return merged
    }

    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        try await base.serverCertificate(host: host, port: port)
    }
}
