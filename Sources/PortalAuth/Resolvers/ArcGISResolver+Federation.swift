import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the owning portal answered a request to exchange its token for a server token.
enum ServerTokenExchange {
    /// The portal issued a server token: that proves the server is federated with it.
    case issued(FederatedTokenCredential)
    /// The portal did not issue one: it answered ArcGIS error `code` (498: the token), or no token.
    /// Why it refused is never read from the wording of its answer.
    case refused(code: Int?)
}

/// The servers a portal lists as federated with it (`portals/self/servers`), read with one of its
/// tokens: the normalised `url` and `adminUrl` of each.
struct FederatedServerList: Sendable {
    /// The portal token the list was read with: a new portal credential reads it again.
    let token: String
    /// The listed servers' roots, normalised (``ServerContext/url``).
    let roots: Set<String>
}

/// What the ArcGIS resolver learned from portals about their servers, and the decision it takes
/// from that alone (``route(to:portalToken:isOnlineHosted:)``, no I/O). Keys are `portal server`
/// pairs of normalised URLs.
final class FederationState: Sendable {
    /// Where a portal's token may go for a server that names the portal as its owner.
    enum Route: Equatable {
        /// Nowhere: the portal neither exchanged this very token nor listed the server.
        case refuse
        /// The portal's own token is used at the server (ArcGIS Online hosted services, or a server
        /// the portal lists as federated but whose token it does not exchange).
        case usePortalToken
        /// Ask the portal to exchange its token for a server token.
        case exchange
    }

    /// `portal server` pairs: servers the portal lists but whose token it does not exchange.
    private let listed = Locked<Set<String>>([])
    /// `portal server` pairs the portal neither exchanged nor listed, with the portal token refused.
    private let unlisted = Locked<[String: String]>([:])
    /// Each portal's list of federated servers, with the token it was read with.
    private let lists = Locked<[String: FederatedServerList]>([:])

    /// The route for the `portal server` pair `key` with `portalToken`, from what is known.
    func route(to key: String, portalToken: String, isOnlineHosted: Bool) -> Route {
        Self.route(
            refusedToken: unlisted.withLock { $0[key] }, listed: listed.withLock { $0.contains(key) },
            portalToken: portalToken, isOnlineHosted: isOnlineHosted)
    }

    /// The decision itself: a token refused before for this pair is refused again without asking
    /// the portal; ArcGIS Online hosted services and listed servers take the portal token; any
    /// other server is asked of the portal.
    static func route(refusedToken: String?, listed: Bool, portalToken: String, isOnlineHosted: Bool) -> Route {
        if refusedToken == portalToken { return .refuse }
        return isOnlineHosted || listed ? .usePortalToken : .exchange
    }

    /// The portal lists the server of `key` but does not exchange its token.
    func recordListed(_ key: String) { listed.withLock { _ = $0.insert(key) } }

    /// The portal neither exchanged `refusedToken` for the server of `key` nor lists it.
    func recordUnlisted(_ key: String, refusedToken: String) { unlisted.withLock { $0[key] = refusedToken } }

    /// The portal's list, when it was read with `token` (a new portal token reads it again).
    func serverList(of portal: String, readWith token: String) -> FederatedServerList? {
        lists.withLock { $0[portal] }.flatMap { $0.token == token ? $0 : nil }
    }

    /// Keeps a portal's list.
    func keep(_ list: FederatedServerList, of portal: String) { lists.withLock { $0[portal] = list } }
}

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
            username: portal.username, referer: portal.referer)
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
                username: portal.username, referer: portal.referer))
    }
}
