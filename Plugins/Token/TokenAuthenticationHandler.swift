public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Supplies a username and password when an ArcGIS server asks for a token: a
/// ``PortalAuth/PasswordProvider`` of ArcGIS challenges.
///
/// Programs implement `usernameAndPassword(for:)` with an ``PortalAuth/ArcGISAuthenticationChallenge``;
/// tests and programs inject their own.
public protocol UsernamePasswordProvider: PasswordProvider where Challenge == ArcGISAuthenticationChallenge {}

/// A provider with fixed credentials, for programs that already hold them.
public typealias StaticUsernamePasswordProvider = StaticPasswordProvider<ArcGISAuthenticationChallenge>

extension StaticPasswordProvider: UsernamePasswordProvider where Challenge == ArcGISAuthenticationChallenge {}

/// Answers ArcGIS challenges (499, 498, 403 `GWM_0003`) with a ``TokenCredential``: asks the
/// provider for a username and password and calls the server context's token service
/// (`{portal}/sharing/rest/generateToken`, or the server's `tokenServicesUrl`).
public struct TokenAuthenticationHandler: AuthenticationChallengeHandler {
    let provider: any UsernamePasswordProvider
    let tokenExpirationMinutes: Int
    let referer: String?
    let keepPassword: Bool

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - tokenExpirationMinutes: the token lifetime to ask for (servers cap it).
    ///   - referer: the referer to bind tokens to; nil (the default) binds them to the requesting
    ///     IP address (`client=requestip`), so they work without a `Referer` header.
    ///   - keepPassword: keep the password in memory to regenerate tokens before they expire.
    public init(
        provider: any UsernamePasswordProvider, tokenExpirationMinutes: Int = 60,
        referer: String? = nil, keepPassword: Bool = true
    ) {
        self.provider = provider
        self.tokenExpirationMinutes = tokenExpirationMinutes
        self.referer = referer
        self.keepPassword = keepPassword
    }

    /// Creates the handler, with the lifetime's earlier label.
    @available(*, deprecated, renamed: "init(provider:tokenExpirationMinutes:referer:keepPassword:)")
    public init(
        provider: any UsernamePasswordProvider, expirationMinutes: Int, referer: String? = nil,
        keepPassword: Bool = true
    ) {
        self.init(
            provider: provider, tokenExpirationMinutes: expirationMinutes, referer: referer, keepPassword: keepPassword)
    }

    /// ``TokenCredential``.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] { [TokenCredential.self] }

    /// Every ArcGIS challenge.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        if case .arcGIS = challenge { return true }
        return false
    }

    /// Asks for a username and password and generates a token.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .arcGIS(let arcGIS) = challenge else { return .continueWithoutCredential }
        guard let (username, password) = try await provider.usernameAndPassword(for: arcGIS) else { return .cancel }
        var tokenServiceURL = arcGIS.tokenServiceURL
        if tokenServiceURL == nil {
            tokenServiceURL = await services.tokenServiceURL(
                for: arcGIS.serverContext, isPortal: ServerContext.arcGISServerRoot(of: arcGIS.requestURL) == nil)
        }
        let credential = try await TokenCredential.credential(
            for: arcGIS.serverContext, tokenServiceURL: tokenServiceURL!, username: username,
            password: password,
            referer: referer, tokenExpirationMinutes: tokenExpirationMinutes, keepPassword: keepPassword,
            services: services)
        return .continueWithCredential(.arcGIS(credential))
    }
}
