import Logging

/// Where a token is presented: each realm accepts tokens of particular kinds.
enum TokenRealm: Sendable {
    /// The portal's sharing API.
    case portal
    /// The federated ArcGIS Server.
    case server
    /// The standalone ArcGIS Server.
    case standalone
    /// The server that claims federation without being federated: it accepts no token.
    case claimant
    /// The location services (geocoding, routing, basemap styles) on their own listener.
    case locationServices
}

/// What an API key needs to be accepted by a resource.
enum APIKeyAccess: Sendable, Equatable {
    /// The resource needs a user: an API key gets 403.
    case refused
    /// An API key holding this privilege is accepted; others get 403.
    case needs(String)
    /// Any valid API key is accepted (`portals/self`).
    case any
}

extension EmulatorContext {
    /// Whether a token of `kind` is accepted in `realm`.
    func accepts(_ kind: TokenKind, in realm: TokenRealm) -> Bool {
        switch (realm, kind) {
        case (.portal, .portal), (.portal, .oauth), (.portal, .app), (.server, .server), (.standalone, .standalone):
            return true
        case (.server, .portal), (.server, .oauth), (.server, .app): return configuration.serverAcceptsPortalTokens
        case (.locationServices, .portal), (.locationServices, .oauth), (.locationServices, .app): return true
        default: return false
        }
    }

    /// Checks the token a request presents for a secured resource: 499 without one,
    /// 498 when unknown, expired, invalidated, bound elsewhere or of the wrong kind, 403 when an
    /// HTTPS-only token arrives over plain HTTP or an API key (or, in the location services, a
    /// user) lacks the privilege. `apiKeys` defaults to `portal:user:viewOrgItems` on the federated
    /// server, and to refusing API keys elsewhere.
    func requireToken(
        _ request: IncomingRequest, realm: TokenRealm, apiKeys: APIKeyAccess? = nil
    ) -> Result<TokenRecord, ArcGISError> {
        guard let token = request.token else { return .failure(.tokenRequired) }
        return check(token, request: request, realm: realm, apiKeys: apiKeys ?? defaultAccess(realm))
    }

    /// Like ``requireToken(_:realm:apiKeys:)`` but a request without a token is anonymous (nil).
    func optionalToken(
        _ request: IncomingRequest, realm: TokenRealm, apiKeys: APIKeyAccess? = nil
    ) -> Result<TokenRecord?, ArcGISError> {
        guard let token = request.token else { return .success(nil) }
        return check(token, request: request, realm: realm, apiKeys: apiKeys ?? defaultAccess(realm)).map {
            Optional($0)
        }
    }

    private func defaultAccess(_ realm: TokenRealm) -> APIKeyAccess {
        realm == .server ? .needs(EmulatorAPIKey.viewOrgItems) : .refused
    }

    private func check(
        _ token: String, request: IncomingRequest, realm: TokenRealm, apiKeys access: APIKeyAccess
    ) -> Result<TokenRecord, ArcGISError> {
        if let key = apiKeys.record(for: token) { return checkAPIKey(key, request: request, realm: realm, access) }
        switch tokens.validate(token, referer: request.headers["referer"], remoteIP: request.remoteIP) {
        case .failure(let problem):
            logger.debug("token rejected", metadata: ["problem": "\(problem)", "path": "\(request.path)"])
            return .failure(.invalidToken)
        case .success(let record):
            guard accepts(record.kind, in: realm) else {
                logger.debug("token of wrong kind", metadata: ["kind": "\(record.kind)", "path": "\(request.path)"])
                return .failure(.invalidToken)
            }
            if record.ssl, !request.isSecure { return .failure(.sslRequired) }
            if realm == .locationServices, case .needs(let privilege) = access, record.kind != .app,
                user(named: record.username)?.holds(privilege) != true
            {
                return .failure(.noPermission)
            }
            return .success(record)
        }
    }

    private func checkAPIKey(
        _ record: APIKeyRecord, request: IncomingRequest, realm: TokenRealm, _ access: APIKeyAccess
    ) -> Result<TokenRecord, ArcGISError> {
        let key: EmulatorAPIKey
        switch apiKeys.validate(record, referer: request.headers["referer"]) {
        case .failure(let problem):
            logger.debug("API key rejected", metadata: ["problem": "\(problem)", "path": "\(request.path)"])
            return .failure(.invalidToken)
        case .success(let valid): key = valid
        }
        guard realm != .standalone, realm != .claimant else { return .failure(.invalidToken) }
        guard request.isSecure else { return .failure(.sslRequired) }
        switch access {
        case .refused: return .failure(.noPermission)
        case .needs(let privilege) where !key.privileges.contains(privilege): return .failure(.noPermission)
        case .needs, .any:
            return .success(
                TokenRecord(
                    username: "", kind: .apiKey, expires: record.expires, ssl: true, referer: key.referer, ip: nil,
                    privileges: key.privileges))
        }
    }
}

extension ArcGISError {
    /// 403 GWM_0003: a valid token that does not reach the resource.
    static let noPermission = ArcGISError(
        code: 403, message: "You do not have permissions to access this resource or perform this operation.",
        messageCode: "GWM_0003")
}
