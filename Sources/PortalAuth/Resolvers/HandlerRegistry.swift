/// The registry: the handler plugins in the order they were registered, and the one way a
/// challenge reaches them. Each resolver routes through it; the manager owns it.
final class HandlerRegistry: Sendable {
    private let handlerList = Locked<[any AuthenticationChallengeHandler]>([])
    private let arcGISStore: ArcGISCredentialStore
    private let iapStore: IAPCredentialStore
    /// What plugins get: the transport (with the credential chain) and helpers.
    let services: AuthenticationServices

    init(arcGISStore: ArcGISCredentialStore, iapStore: IAPCredentialStore, services: AuthenticationServices) {
        self.arcGISStore = arcGISStore
        self.iapStore = iapStore
        self.services = services
    }

    /// The registered plugins, in order.
    var handlers: [any AuthenticationChallengeHandler] { handlerList.withLock { $0 } }

    /// Adds a plugin after those already registered.
    func append(_ handler: any AuthenticationChallengeHandler) { handlerList.withLock { $0.append(handler) } }

    /// Whether a registered plugin accepts `challenge`.
    func canHandle(_ challenge: AuthenticationChallenge) -> Bool { handlers.contains { $0.canHandle(challenge) } }

    /// Asks the first accepting plugin; commits what it returns (``CredentialStore/commit(_:origin:)``) (a network credential is stored by
    /// the request once the server accepts it). `nil` when no plugin accepts or it gives nothing.
    func route(_ challenge: AuthenticationChallenge) async throws -> AuthenticationChallenge.Credential? {
        guard let handler = handlers.first(where: { $0.canHandle(challenge) }) else { return nil }
        switch try await handler.handle(challenge, services: services) {
        case .continueWithCredential(let credential):
            switch credential {
            case .arcGIS(let c): try await arcGISStore.commit(c, origin: .replacement)
            case .network: break
            case .iap(let c): try await iapStore.commit(c, origin: .replacement)
            }
            return credential
        case .continueWithoutCredential:
            return nil
        case .cancel:
            throw PortalAuthError(
                .cancelled, "sign-in to \(ServerContext.describe(challenge.requestURL)) was cancelled", remedy: .none)
        }
    }
}
