import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers ArcGIS challenges (499, 498, 403 `GWM_0003` without a token) and keeps ArcGIS
/// credentials fresh: one resolution per server context however many requests are challenged
/// at once, renewal once across tasks and processes, and federation (a server token from the
/// owning portal, on the portal's word). It owns that concurrency state; the manager's loop asks it.
final class ArcGISResolver: Sendable {
    /// Where ArcGIS credentials are kept.
    let arcGISCredentialStore: ArcGISCredentialStore
    /// The plugins, for what needs a sign-in.
    let registry: HandlerRegistry
    /// One ArcGIS challenge resolution per server context.
    let arcGISFlights = SingleFlight<String, (any ArcGISCredential)?>()
    /// One renewal per credential, across tasks and processes.
    let renewals: RenewOnce
    /// What portals said of their federated servers.
    let federation = FederationState()

    init(store: ArcGISCredentialStore, registry: HandlerRegistry, usesCrossProcessLocks: Bool) {
        self.arcGISCredentialStore = store
        self.registry = registry
        self.renewals = RenewOnce(usesCrossProcessLocks: usesCrossProcessLocks, services: registry.services)
    }

    /// The services plugins get.
    var services: AuthenticationServices { registry.services }
    /// The logger.
    var logger: Logger { services.logger }

    /// How to sign in to `context` again (see ``AuthenticationManager/signInRemedy(for:credential:)``).
    static func signInRemedy(for context: ServerContext, credential: (any ArcGISCredential)?) -> PortalAuthError.Remedy
    {
        AuthenticationManager.signInRemedy(for: context, credential: credential)
    }

    /// The ArcGIS challenge being resolved for `url`'s server (the key ``resolveArcGISChallenge(url:error:sent:interactive:)`` uses).
    func pendingChallenge(for url: URL) -> Task<(any ArcGISCredential)?, any Error>? {
        // (Asked before every attempt: with none under way, the key is not worked out.)
        guard !arcGISFlights.isIdle else { return nil }
        guard let key = (ServerContext.arcGISServerRoot(of: url) ?? (try? ServerContext(url: url)))?.url else {
            return nil
        }
        return arcGISFlights.running(key)
    }
}

extension ArcGISResolver {
    // MARK: - Challenges

    /// Obtains a credential for an ArcGIS challenge on `url`, once per server context however many
    /// requests are challenged at the same time.
    func resolveArcGISChallenge(
        url: URL, error: ArcGISError, sent: (any ArcGISCredential)?, interactive: Bool = true
    ) async throws -> (any ArcGISCredential)? {
        let serverRoot = ServerContext.arcGISServerRoot(of: url)
        let key = try (serverRoot ?? ServerContext(url: url)).url
        // (Nothing here waits for a pending challenge: the resolution and the plugins send through
        // the chain (``AuthenticationServices``), never through the manager's loop.)
        return try await arcGISFlights.run(key) { [self] in
            // A credential stored since this request was sent answers it without asking anyone. (Read once:
            // when nothing was sent, the sign-in below names it as the one it replaces.)
            let stored = try await arcGISCredentialStore.credential(for: url)
            if let current = stored, current.tokenInfo.accessToken != sent?.tokenInfo.accessToken,
                !current.tokenInfo.isExpired(), try await isOwnFederatedToken(current)
            {
                return current
            }
            // A refused credential renews through the one renewal path (its own way, the
            // program's unattended one; a federated server token from its portal).
            if let sent, let renewed = try await renew(sent, refused: true) { return renewed }
            if let serverRoot {
                return try await resolveServerChallenge(
                    url: url, root: serverRoot, error: error, sent: sent, interactive: interactive)
            }
            let context = try ServerContext(url: url)
            guard interactive else {
                if let sent, sent.derivedFrom == nil { throw Self.signInExpired(sent) }
                throw PortalAuthError(
                    .noCredential,
                    "no credential for \(context)", remedy: Self.signInRemedy(for: context, credential: stored))
            }
            let challenge = ArcGISAuthenticationChallenge(
                requestURL: url, serverContext: stored?.serverContext ?? context, error: error,
                previousCredential: sent ?? stored)
            return try await routeArcGIS(challenge)
        }
    }

    /// A challenge from an ArcGIS Server: federated servers get a token from their portal.
    func resolveServerChallenge(
        url: URL, root: ServerContext, error: ArcGISError, sent: (any ArcGISCredential)?, interactive: Bool
    ) async throws -> (any ArcGISCredential)? {
        let info = try await services.getJSON(URL(string: root.url + "/rest/info")!)
        let hint = info["authInfo"]?["tokenServicesUrl"]?.stringValue
        if let owning = info["owningSystemUrl"]?.stringValue, let portalURL = URL(string: owning),
            let portal = try? ServerContext(url: portalURL)
        {
            // The server's own word never chooses where the portal's password or token goes.
            guard portal.isOwnPortalTokenService(hint: hint) else {
                throw Self.namesAnotherTokenService(root, portal: portal, hint: hint)
            }
            return try await resolveFederatedChallenge(
                url: url, root: root, portal: portal, portalURL: portalURL, error: error, interactive: interactive)
        }
        // A standalone server: the token service it names when that is its own, else its conventional one.
        var tokenServiceURL = hint.flatMap(URL.init(string:))
        if let named = tokenServiceURL, !root.acceptsTokenService(named) {
            logger.warning(
                "ignoring a token service that is not the server's own",
                metadata: ["server": "\(root)", "named": "\(ServerContext.describe(named))"])
            tokenServiceURL = URL(string: root.url + "/tokens/generateToken")
        }
        guard interactive else {
            throw PortalAuthError(
                .noCredential,
                "no credential for \(root) (a server not federated with a portal)",
                remedy: Self.signInRemedy(for: root, credential: nil))
        }
        let challenge = ArcGISAuthenticationChallenge(
            requestURL: url, serverContext: root, error: error,
            previousCredential: sent, tokenServiceURL: tokenServiceURL)
        return try await routeArcGIS(challenge)
    }

    /// A challenge from a server federated with `portal` (at `portalURL`, as the server names it;
    /// its own portal, checked): a token from the portal's credential, signing in to the portal
    /// first when there is none (`interactive`).
    private func resolveFederatedChallenge(
        url: URL, root: ServerContext, portal: ServerContext, portalURL: URL, error: ArcGISError, interactive: Bool
    ) async throws -> (any ArcGISCredential)? {
        logger.debug("federated server", metadata: ["server": "\(root)", "portal": "\(portal)"])
        var portalCredential = try await credentialForUse(portalURL)
        if portalCredential == nil {
            guard interactive else {
                throw PortalAuthError(
                    .noCredential,
                    "\(root) is federated with \(portal), which has no credential",
                    remedy: Self.signInRemedy(for: portal, credential: nil))
            }
            let challenge = ArcGISAuthenticationChallenge(
                requestURL: url, serverContext: portal, error: error,
                previousCredential: try await arcGISCredentialStore.credential(for: portal),
                tokenServiceURL: portal.portalTokenServiceURL)
            portalCredential = try await routeArcGIS(challenge)
        }
        guard let portalCredential else { return nil }
        do {
            return try await federate(server: root, portal: portalCredential, tokenServiceURL: nil)
        } catch let error as PortalAuthError where error.code == .credentialExpired && interactive {
            // The portal's sign-in expired or was revoked and nothing renewed it unattended:
            // the plugins sign in to the portal again (at its own token service), and the
            // exchange is tried once more.
            let challenge = ArcGISAuthenticationChallenge(
                requestURL: url, serverContext: portalCredential.serverContext,
                error: ArcGISError(code: 498, message: "Invalid token."),
                previousCredential: portalCredential, tokenServiceURL: portal.portalTokenServiceURL)
            guard let signedIn = try await routeArcGIS(challenge) else { throw error }
            return try await federate(server: root, portal: signedIn, tokenServiceURL: nil)
        }
    }

    /// The error for `credential`, a portal's or server's own, refused before its expiry when
    /// nothing could renew it: its sign-in expired or was revoked. The remedy signs in there again.
    static func signInExpired(_ credential: any ArcGISCredential) -> PortalAuthError {
        PortalAuthError(
            .credentialExpired,
            "the sign-in to \(credential.serverContext) expired or was revoked: its token was refused before its "
                + "expiry, and nothing can renew it unattended",
            remedy: signInRemedy(for: credential.serverContext, credential: credential))
    }

    /// Routes an ArcGIS challenge to the first plugin that accepts it.
    func routeArcGIS(_ challenge: ArcGISAuthenticationChallenge) async throws -> (any ArcGISCredential)? {
        switch try await registry.route(.arcGIS(challenge)) {
        case .arcGIS(let credential)?: return credential
        case .network?, .iap?:
            throw PortalAuthError(
                .internalError, "a plugin answered an ArcGIS challenge with a non-ArcGIS credential", remedy: .none)
        case nil:
            if registry.canHandle(.arcGIS(challenge)) { return nil }
            throw PortalAuthError(
                .authenticationRequired,
                "\(challenge.serverContext) requires sign-in (\(challenge.error.code) \(challenge.error.message)) and "
                    + "no plugin can answer",
                remedy: Self.signInRemedy(for: challenge.serverContext, credential: challenge.previousCredential),
                cause: challenge.error.cause)
        }
    }
}
