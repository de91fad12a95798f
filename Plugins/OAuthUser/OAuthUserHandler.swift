public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers ArcGIS challenges on portals it has an ``OAuthUserConfiguration`` for (and on portals
/// whose stored OAuth credential can no longer be renewed) by signing the user in through the
/// browser.
public struct OAuthUserHandler: AuthenticationChallengeHandler {
    /// The portals this handler signs in to.
    public let configurations: [OAuthUserConfiguration]
    /// Shows the sign-in page and reads pasted codes.
    public let userAgent: any AuthorizationUserAgent

    /// Creates the handler.
    public init(configurations: [OAuthUserConfiguration] = [], userAgent: any AuthorizationUserAgent) {
        self.configurations = configurations
        self.userAgent = userAgent
    }

    /// ``OAuthUserCredential``.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] { [OAuthUserCredential.self] }

    /// The configuration for a challenge: a configured portal, or the app of the OAuth
    /// credential that was refused or expired.
    func configuration(for challenge: ArcGISAuthenticationChallenge) -> OAuthUserConfiguration? {
        if let match = configurations.first(where: { (try? $0.portalContext) == challenge.serverContext }) {
            return match
        }
        if let previous = challenge.previousCredential as? OAuthUserCredential,
            previous.serverContext == challenge.serverContext,
            let url = URL(string: previous.serverContext.url)
        {
            return try? OAuthUserConfiguration(
                portalURL: url, clientID: previous.clientID, redirectURL: previous.redirectURL)
        }
        return nil
    }

    /// ArcGIS challenges for a configured portal or a stored OAuth credential.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .arcGIS(let arcGIS) = challenge else { return false }
        return configuration(for: arcGIS) != nil
    }

    /// Signs the user in.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .arcGIS(let arcGIS) = challenge, let configuration = configuration(for: arcGIS) else {
            return .continueWithoutCredential
        }
        let credential = try await OAuthUserCredential.credential(
            for: configuration, userAgent: userAgent, services: services)
        return .continueWithCredential(.arcGIS(credential))
    }
}
