import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArcGISResolver {
    /// A server token for `server`, an ArcGIS Server that names `portal`'s portal as its owner,
    /// cached per server. The portal's word decides whether `server` is federated, never the
    /// server's claim (any host can name any portal in its `rest/info`):
    ///
    /// - The portal token is exchanged at the portal's generateToken (`token` + `serverUrl`); a
    ///   server token the portal issues proves federation. A portal token the portal refuses
    ///   (498 during the exchange) is renewed once (refresh token, password in memory, app secret)
    ///   and the exchange tried again.
    /// - When the portal does not issue one (an app token, an older portal), the portal's own token
    ///   is used at the server directly, as the ArcGIS API for Python and the Services Directory do,
    ///   but only when the portal lists the server as federated (`portals/self/servers`, its `url`
    ///   or `adminUrl`); otherwise nothing is sent, stored or returned: ``PortalAuthError/Code/notFederated``.
    /// - ArcGIS Online hosted services (`*.arcgis.com`) take the ArcGIS Online portal token directly.
    func federate(
        server: ServerContext, portal: any ArcGISCredential, tokenServiceURL: URL?
    ) async throws -> any ArcGISCredential {
        let credential: FederatedTokenCredential
        let isOnlineHosted =
            server.host.hasSuffix(".arcgis.com") && ServerContext.isArcGISOnline(portal.serverContext.host)
        let listedKey = portal.serverContext.url + " " + server.url
        switch federation.route(
            to: listedKey, portalToken: portal.tokenInfo.accessToken, isOnlineHosted: isOnlineHosted)
        {
        case .refuse: throw Self.notFederated(server, portal: portal)
        case .usePortalToken: credential = Self.portalTokenCredential(for: server, portal: portal)
        case .exchange:
            credential = try await exchange(server: server, portal: portal, tokenServiceURL: tokenServiceURL)
        }
        if try await arcGISCredentialStore.commit(credential, origin: .federation) == .notStored {
            logger.debug("server token not stored: the portal's account changed", metadata: ["server": "\(server)"])
        }
        return credential
    }

    /// Exchanges the portal token for a server token; renews a refused portal token once; when the
    /// portal issues none, uses the portal token itself if the portal lists the server.
    func exchange(
        server: ServerContext, portal: any ArcGISCredential, tokenServiceURL: URL?
    ) async throws -> FederatedTokenCredential {
        let serviceURL = try tokenService(of: portal, named: tokenServiceURL, for: server)
        var portal = portal
        var answer = try await requestServerToken(for: server, portal: portal, at: serviceURL)
        if case .refused(498) = answer {
            // The portal refused its own token before its expiry (a restart, a revocation): its
            // sign-in renews through the one renewal path, or it expired or was revoked (never
            // "not federated": the server's federation is not in question).
            guard let renewed = try await renew(portal, refused: true),
                renewed.tokenInfo.accessToken != portal.tokenInfo.accessToken
            else { throw Self.signInExpired(portal) }
            logger.debug(
                "the portal refused its own token in the exchange; renewed it", metadata: ["server": "\(server)"])
            portal = renewed
            answer = try await requestServerToken(for: server, portal: portal, at: serviceURL)
        }
        switch answer {
        case .issued(let credential):
            return credential
        case .refused(let code):
            guard try await federatedServers(of: portal).roots.contains(server.url) else {
                logger.info(
                    "a server names the portal as its owner, but the portal neither issued a token for it nor lists it",
                    metadata: ["server": "\(server)", "portal": "\(portal.serverContext)"])
                // Answered without asking the portal again while its token is the same.
                let token = portal.tokenInfo.accessToken
                federation.recordUnlisted(portal.serverContext.url + " " + server.url, refusedToken: token)
                throw Self.notFederated(server, portal: portal)
            }
            logger.info(
                "the portal lists the server as federated but does not exchange this token; using the portal token there",
                metadata: ["server": "\(server)", "portal": "\(portal.serverContext)", "code": "\(code ?? 0)"])
            federation.recordListed(portal.serverContext.url + " " + server.url)
            return Self.portalTokenCredential(for: server, portal: portal)
        }
    }

    /// The error for a server that names `portal` as its owner without the portal's word for it.
    /// Its remedy never sends the user to the server: only the portal's administrator can vouch for it.
    static func notFederated(_ server: ServerContext, portal: any ArcGISCredential) -> PortalAuthError {
        PortalAuthError(
            .notFederated,
            "\(server) is not federated with \(portal.serverContext) by the portal's word: the portal does not list it "
                + "among its servers and issued no token for it, so no token or password was sent there",
            remedy: .reportToAdministrator(server: portal.serverContext.url))
    }

    /// The error for a server that names `portal` as its owner and a token service other than the
    /// portal's own (`hint`): the portal does not vouch for it, and nothing is sent to either.
    static func namesAnotherTokenService(
        _ server: ServerContext, portal: ServerContext, hint: String?
    ) -> PortalAuthError {
        let named = hint.flatMap(URL.init(string:)).map(ServerContext.describe) ?? "a token service that is not a URL"
        return PortalAuthError(
            .notFederated,
            "\(server) names \(portal) as its owner but a token service that is not the portal's own (\(named)): the "
                + "portal does not list a server on the server's word, so no token or password was sent to it or to "
                + "that service",
            remedy: .reportToAdministrator(server: portal.url))
    }

    /// The servers `portal`'s portal lists as federated (`GET portals/self/servers`), read once per
    /// portal token. A portal without the list (ArcGIS Online, an answer that is not one) lists none.
    func federatedServers(of portal: any ArcGISCredential) async throws -> FederatedServerList {
        let token = portal.tokenInfo.accessToken
        let key = portal.serverContext.url
        if let cached = federation.serverList(of: key, readWith: token) { return cached }
        let url = URL(string: portal.serverContext.portalRESTURL + "/portals/self/servers")!
        var headers: [(name: String, value: String)] = []
        if let referer = portal.referer { headers.append(("Referer", referer)) }
        let json: JSONValue
        do {
            json = try await services.postForm(url, [("token", token)], headers: headers)
        } catch let error as PortalAuthError where error.code == .arcGISError || error.code == .httpError {
            logger.info(
                "the portal's list of federated servers cannot be read", metadata: ["portal": "\(portal.serverContext)"]
            )
            json = .null
        }
        let list = FederatedServerList(token: token, roots: Self.serverRoots(in: json))
        federation.keep(list, of: key)
        return list
    }

    /// The normalised `url` and `adminUrl` of each server in a `portals/self/servers` answer; a
    /// URL that is not read strictly is left out.
    static func serverRoots(in json: JSONValue) -> Set<String> {
        guard case .array(let servers)? = json["servers"] else { return [] }
        var roots: Set<String> = []
        for server in servers.prefix(1000) {
            for key in ["url", "adminUrl"] {
                guard let text = server[key]?.stringValue, let root = try? ServerContext(text) else { continue }
                roots.insert(root.url)
            }
        }
        return roots
    }

    /// The portal's own token, for use at a federated server that accepts it.
    static func portalTokenCredential(
        for server: ServerContext, portal: any ArcGISCredential
    ) -> FederatedTokenCredential {
        FederatedTokenCredential(
            serverContext: server, portal: portal.serverContext, tokenInfo: portal.tokenInfo,
            username: portal.username, referer: portal.referer,
            portalPrincipal: ArcGISCredentialStore.principal(of: portal).id)
    }

    /// The token service to exchange at: the portal's own generateToken, derived from the URL of
    /// the portal credential. A server's `tokenServicesUrl` (`tokenServiceURL`) is only a hint
    /// that must name that very service; any other means the portal does not vouch for the server.
    func tokenService(
        of portal: any ArcGISCredential, named tokenServiceURL: URL?, for server: ServerContext
    ) throws -> URL {
        guard portal.serverContext.isOwnPortalTokenService(hint: tokenServiceURL?.absoluteString) else {
            throw Self.namesAnotherTokenService(
                server, portal: portal.serverContext, hint: tokenServiceURL?.absoluteString)
        }
        return portal.serverContext.portalTokenServiceURL
    }

    /// Asks the portal for a server token: issued, or refused (an ArcGIS error, or no token);
    /// any other failure (the network, TLS) throws.
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
            if case .arcGIS(let code, _, _, _)? = error.cause { return .refused(code: code) }
            return .refused(code: nil)
        }
        guard let token = json["token"]?.stringValue, !token.isEmpty else { return .refused(code: nil) }
        let issuer = "the token service \(ServerContext.describe(serviceURL))"
        return .issued(
            FederatedTokenCredential(
                serverContext: server, portal: portal.serverContext,
                tokenInfo: try TokenInfo(
                    accessToken: token,
                    expirationDate: try json.lifetime("expires", from: issuer).map {
                        Date(timeIntervalSince1970: $0 / 1000)
                    },
                    isSSLRequired: json["ssl"]?.boolValue ?? false
                ).checkedAsIssued(by: issuer),
                username: portal.username, referer: portal.referer,
                portalPrincipal: ArcGISCredentialStore.principal(of: portal).id))
    }
}
