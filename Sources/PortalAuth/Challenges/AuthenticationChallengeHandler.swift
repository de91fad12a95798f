#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A challenge-handler plugin. Plugins register with the ``AuthenticationManager`` in order;
/// each challenge goes to the first plugin whose ``canHandle(_:)`` returns true.
public protocol AuthenticationChallengeHandler: Sendable {
    /// The credential types this plugin makes, so the stores can read them back.
    var arcGISCredentialTypes: [any ArcGISCredential.Type] { get }
    /// The network credential types this plugin makes.
    var networkCredentialTypes: [any NetworkCredential.Type] { get }
    /// The IAP credential types this plugin makes.
    var iapCredentialTypes: [any IAPAuthorizationCredential.Type] { get }
    /// Whether the plugin answers this challenge.
    func canHandle(_ challenge: AuthenticationChallenge) -> Bool
    /// Answers the challenge. The plugin sends its own requests (a token service, a sign-in page's
    /// endpoints) through `services`, which carries a host's network credentials and a proxy's token
    /// but answers no ArcGIS challenge; never through the manager, whose request to the server being
    /// signed in to would wait for this very sign-in.
    func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition
}

extension AuthenticationChallengeHandler {
    /// None by default.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] { [] }
    /// None by default.
    public var networkCredentialTypes: [any NetworkCredential.Type] { [] }
    /// None by default.
    public var iapCredentialTypes: [any IAPAuthorizationCredential.Type] { [] }
}
