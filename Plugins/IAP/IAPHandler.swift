public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers identity-aware proxy challenges (a redirect to the identity provider's sign-in page,
/// or 401 with `WWW-Authenticate: Bearer`) for the hosts its configurations cover, by signing
/// the user in through the browser.
public struct IAPHandler: AuthenticationChallengeHandler {
    /// The proxies this handler signs in to.
    public let configurations: [IAPConfiguration]
    /// Shows the sign-in page.
    public let userAgent: any AuthorizationUserAgent

    /// Creates a handler for these proxies.
    public init(configurations: [IAPConfiguration], userAgent: any AuthorizationUserAgent) {
        self.configurations = configurations
        self.userAgent = userAgent
    }

    /// ``IAPCredential``.
    public var iapCredentialTypes: [any IAPAuthorizationCredential.Type] { [IAPCredential.self] }

    /// The configuration for a challenge: its request's host is behind the proxy, and a redirect
    /// goes to that configuration's identity provider.
    func configuration(for challenge: IAPAuthenticationChallenge) -> IAPConfiguration? {
        configurations.first { configuration in
            guard configuration.canBeUsed(for: challenge.requestURL) else { return false }
            guard challenge.status != 401 else { return true }
            guard let location = challenge.location else { return false }
            return location.host(percentEncoded: false)?.lowercased()
                == configuration.authorizeURL.host(percentEncoded: false)?.lowercased()
        }
    }

    /// Proxy challenges on covered hosts.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .iap(let proxy) = challenge else { return false }
        return configuration(for: proxy) != nil
    }

    /// Signs in and answers with the new credential.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .iap(let proxy) = challenge, let configuration = configuration(for: proxy) else {
            return .continueWithoutCredential
        }
        let credential = try await IAPCredential.credential(
            for: configuration, userAgent: userAgent, services: services)
        return .continueWithCredential(.iap(credential))
    }
}
