import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the owning portal answered a request to exchange its token for a server token.
enum ServerTokenExchange {
    /// The portal issued a server token.
    case issued(FederatedTokenCredential)
    /// The portal refused the exchange with ArcGIS error `code` (498: the token, 400: the request).
    case refused(code: Int, PortalAuthError)
}

extension AuthenticationManager {
    /// A server token for `server`, an ArcGIS Server federated with `portal`'s portal, cached per
    /// server. It works with every kind of portal credential, as the protocol reference's two
    /// readings of federation require:
    ///
    /// - The portal token is exchanged at the portal's generateToken (`token` + `serverUrl`).
    /// - A portal token the portal refuses (498 during the exchange) is renewed once (refresh
    ///   token, password in memory, app secret) and the exchange tried again.
    /// - When the portal refuses the exchange itself (498 or 400: an app token, an older portal),
    ///   the portal's own token is used at the server directly, as the ArcGIS API for Python and
    ///   the Services Directory do, and the refusal is remembered for the server so that later
    ///   requests do not ask again. ArcGIS Online hosted services take the portal token directly.
    func federate(
        server: ServerContext, portal: any ArcGISCredential, tokenServiceURL: URL?
    ) async throws -> any ArcGISCredential {
        let credential: FederatedTokenCredential
        let isOnlineHosted =
            server.host.hasSuffix(".arcgis.com") && ServerContext.isArcGISOnline(portal.serverContext.host)
        if isOnlineHosted || refusedExchanges.withLock({ $0.contains(server.url) }) {
            credential = Self.portalTokenCredential(for: server, portal: portal)
        } else {
            credential = try await exchange(server: server, portal: portal, tokenServiceURL: tokenServiceURL)
        }
        try await arcGISCredentialStore.add(credential)
        return credential
    }

    /// Exchanges the portal token for a server token; renews a refused portal token once; falls
    /// back to the portal token itself when the portal refuses the exchange.
    func exchange(
        server: ServerContext, portal: any ArcGISCredential, tokenServiceURL: URL?
    ) async throws -> FederatedTokenCredential {
        let serviceURL = tokenService(of: portal, named: tokenServiceURL, for: server)
        var portal = portal
        var answer = try await requestServerToken(for: server, portal: portal, at: serviceURL)
        if case .refused(498, _) = answer, let renewed = try await renew(portal, refused: true),
            renewed.tokenInfo.accessToken != portal.tokenInfo.accessToken
        {
            logger.debug(
                "the portal refused its own token in the exchange; renewed it", metadata: ["server": "\(server)"])
            portal = renewed
            answer = try await requestServerToken(for: server, portal: portal, at: serviceURL)
        }
        switch answer {
        case .issued(let credential):
            return credential
        case .refused(let code, let error):
            logger.info(
                "the portal refuses to exchange its token for this server's; using the portal token there",
                metadata: ["server": "\(server)", "portal": "\(portal.serverContext)", "code": "\(code)"])
            logger.debug("exchange refusal", metadata: ["cause": "\(error.cause.map { "\($0)" } ?? "")"])
            refusedExchanges.withLock { _ = $0.insert(server.url) }
            return Self.portalTokenCredential(for: server, portal: portal)
        }
    }

    /// The portal's own token, for use at a federated server that accepts it.
    static func portalTokenCredential(
        for server: ServerContext, portal: any ArcGISCredential
    ) -> FederatedTokenCredential {
        FederatedTokenCredential(
            serverContext: server, portal: portal.serverContext, tokenInfo: portal.tokenInfo,
            username: portal.username, referer: portal.referer)
    }

    /// The token service to exchange at: the one the challenging server names when it is the
    /// portal's own over https, otherwise the portal's generateToken. The portal token only ever
    /// goes to the portal itself.
    func tokenService(of portal: any ArcGISCredential, named tokenServiceURL: URL?, for server: ServerContext) -> URL {
        let ownService = URL(string: portal.serverContext.url + "/sharing/rest/generateToken")!
        guard let tokenServiceURL else { return ownService }
        if tokenServiceURL.scheme?.lowercased() == "https", portal.serverContext.contains(tokenServiceURL) {
            return tokenServiceURL
        }
        logger.warning(
            "ignoring a token service outside the portal",
            metadata: [
                "server": "\(server)", "named": "\(ServerContext.describe(tokenServiceURL))",
                "portal": "\(portal.serverContext)",
            ])
        return ownService
    }

    /// Asks the portal for a server token. A refusal the fallback can answer (498 or 400) is
    /// returned; a portal that says the server is not federated with it, or any other error, throws.
    func requestServerToken(
        for server: ServerContext, portal: any ArcGISCredential, at serviceURL: URL
    ) async throws -> ServerTokenExchange {
        var parameters = [("token", portal.tokenInfo.accessToken), ("serverUrl", server.url)]
        var headers: [(name: String, value: String)] = []
        // The server token is bound as the portal token is; servers differ without `client`.
        if let referer = portal.referer {
            parameters += [("client", "referer"), ("referer", referer)]
            headers.append(("Referer", referer))
        } else {
            parameters.append(("client", "requestip"))
        }
        parameters.append(("expiration", "60"))
        let json: JSONValue
        do {
            json = try await services.postForm(serviceURL, parameters, headers: headers)
        } catch let error as PortalAuthError where error.code == .arcGISError {
            if case .arcGIS(let code, _, let message, let details)? = error.cause, code == 498 || code == 400,
                !([message] + details).contains(where: { $0.lowercased().contains("not federated") })
            {
                return .refused(code: code, error)
            }
            throw PortalAuthError(
                .notFederated, "\(portal.serverContext) would not issue a token for \(server): \(error.message)",
                remedy: .none, cause: error.cause)
        }
        guard let token = json["token"]?.stringValue, !token.isEmpty else {
            throw PortalAuthError(
                .invalidResponse,
                "\(ServerContext.describe(serviceURL)) answered without a token: check that \(server) is federated with \(portal.serverContext)",
                remedy: .none)
        }
        return .issued(
            FederatedTokenCredential(
                serverContext: server, portal: portal.serverContext,
                tokenInfo: try TokenInfo(
                    accessToken: token,
                    expirationDate: json["expires"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) },
                    isSSLRequired: json["ssl"]?.boolValue ?? false
                ).checkedAsIssued(by: "the token service \(ServerContext.describe(serviceURL))"),
                username: portal.username, referer: portal.referer))
    }
}
