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
}

extension EmulatorContext {
    /// Whether a token of `kind` is accepted in `realm`.
    func accepts(_ kind: TokenKind, in realm: TokenRealm) -> Bool {
        switch (realm, kind) {
        case (.portal, .portal), (.portal, .oauth), (.portal, .app), (.server, .server), (.standalone, .standalone):
            return true
        case (.server, .portal), (.server, .oauth), (.server, .app): return configuration.serverAcceptsPortalTokens
        default: return false
        }
    }

    /// Checks the token a request presents for a secured resource: 499 without one,
    /// 498 when unknown, expired, bound elsewhere or of the wrong kind, 403 when an
    /// HTTPS-only token arrives over plain HTTP.
    func requireToken(_ request: IncomingRequest, realm: TokenRealm) -> Result<TokenRecord, ArcGISError> {
        guard let token = request.token else { return .failure(.tokenRequired) }
        return check(token, request: request, realm: realm)
    }

    /// Like ``requireToken(_:realm:)`` but a request without a token is anonymous (nil).
    func optionalToken(_ request: IncomingRequest, realm: TokenRealm) -> Result<TokenRecord?, ArcGISError> {
        guard let token = request.token else { return .success(nil) }
        return check(token, request: request, realm: realm).map { Optional($0) }
    }

    private func check(_ token: String, request: IncomingRequest, realm: TokenRealm) -> Result<TokenRecord, ArcGISError>
    {
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
            return .success(record)
        }
    }
}
