import Logging

/// generateToken, as the portal (`/sharing/rest/generateToken`) and the standalone server
/// (`/tokens/generateToken`) implement it.
struct TokenService: Sendable {
    /// Which service this is: `.portal` or `.standalone`.
    let kind: TokenKind
    let context: EmulatorContext

    /// Answers one generateToken request.
    func generate(_ request: IncomingRequest) -> OutgoingResponse {
        let wantsServerToken =
            kind == .portal && request.parameter("username") == nil
            && request.parameter("token") != nil
        context.counters.update { c in
            switch kind {
            case .standalone: c.standaloneTokenRequests += 1
            case .portal, .server, .oauth, .app, .apiKey:
                if wantsServerToken { c.serverTokenRequests += 1 } else { c.generateTokenRequests += 1 }
            }
        }
        guard request.isSecure else { return Rendering.error(.sslRequired, for: request) }
        guard request.method == "POST" else {
            return Rendering.error(
                ArcGISError(
                    code: 405, message: "Method not supported.",
                    details: ["generateToken only accepts POST requests."]),
                for: request)
        }
        let result = wantsServerToken ? serverToken(request) : credentialToken(request)
        switch result {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let (token, record)):
            context.counters.update { $0.tokensIssued += 1 }
            return Rendering.resource(
                .object([("token", .string(token)), ("expires", .int(record.expires)), ("ssl", .bool(record.ssl))]),
                for: request)
        }
    }

    /// username + password → a token of this service's kind.
    private func credentialToken(_ request: IncomingRequest) -> Result<(String, TokenRecord), ArcGISError> {
        guard let username = request.parameter("username"), let password = request.parameter("password") else {
            return .failure(
                ArcGISError(
                    code: 400, message: "Unable to generate token.",
                    details: ["'username' and 'password' must be specified."]))
        }
        guard let user = context.user(named: username), user.password == password else {
            context.logger.debug("generateToken: bad credentials", metadata: ["username": "\(username)"])
            return .failure(.badCredentials)
        }
        return binding(request).map { referer, ip in
            let record = TokenRecord(
                username: user.username, kind: kind, expires: expiry(request, notAfter: nil), ssl: true,
                referer: referer, ip: ip)
            return (context.tokens.issue(record), record)
        }
    }

    /// token + serverUrl → a federated server token, valid no longer than the portal token.
    private func serverToken(_ request: IncomingRequest) -> Result<(String, TokenRecord), ArcGISError> {
        guard let portalToken = request.parameter("token") else { return .failure(.tokenRequired) }
        let validated = context.tokens.validate(
            portalToken, referer: request.headers["referer"], remoteIP: request.remoteIP)
        guard case .success(let portalRecord) = validated, [.portal, .oauth].contains(portalRecord.kind) else {
            return .failure(.invalidToken)
        }
        guard let serverURL = request.parameter("serverurl") else {
            return .failure(
                ArcGISError(
                    code: 400, message: "Unable to generate token.",
                    details: ["'serverUrl' must be specified."]))
        }
        guard
            Self.isFederated(serverURL, with: context.urls.serverURL)
                || Self.isFederated(serverURL, with: context.urls(for: request).serverURL)
        else {
            return .failure(
                ArcGISError(
                    code: 400, message: "Unable to generate token.",
                    details: ["'serverUrl' is not a server federated with this portal."]))
        }
        return binding(request).map { referer, ip in
            let record = TokenRecord(
                username: portalRecord.username, kind: .server,
                expires: expiry(request, notAfter: portalRecord.expires), ssl: true, referer: referer, ip: ip)
            return (context.tokens.issue(record), record)
        }
    }

    /// The `client` binding: referer, ip, requestip, or none when `client` is absent.
    private func binding(_ request: IncomingRequest) -> Result<(String?, String?), ArcGISError> {
        switch request.parameter("client")?.lowercased() {
        case nil: return .success((nil, nil))
        case "referer":
            guard let referer = request.parameter("referer") else {
                return .failure(
                    ArcGISError(
                        code: 400, message: "Unable to generate token.",
                        details: ["'referer' must be specified."]))
            }
            return .success((referer, nil))
        case "ip":
            guard let ip = request.parameter("ip") else {
                return .failure(
                    ArcGISError(
                        code: 400, message: "Unable to generate token.",
                        details: ["'ip' must be specified."]))
            }
            return .success((nil, ip))
        case "requestip":
            return .success((nil, request.remoteIP))
        case let other?:
            return .failure(
                ArcGISError(
                    code: 400, message: "Unable to generate token.",
                    details: ["Invalid client type '\(other)'."]))
        }
    }

    /// `expiration` minutes, defaulted and capped by the configuration (and by `notAfter`).
    private func expiry(_ request: IncomingRequest, notAfter: Int64?) -> Int64 {
        let configuration = context.configuration
        var minutes = configuration.tokenLifetimeMinutes
        if let text = request.parameter("expiration"), let requested = Int(text), requested > 0 {
            minutes = requested
        }
        minutes = min(minutes, configuration.maxTokenLifetimeMinutes)
        let expires = context.nowMilliseconds + Int64(minutes) * 60_000
        return notAfter.map { min($0, expires) } ?? expires
    }

    /// True when `candidate` names the federated server: same scheme, host and port
    /// (case-insensitive), and the path is the server root or below it.
    static func isFederated(_ candidate: String, with serverURL: String) -> Bool {
        var candidate = candidate.lowercased()
        while candidate.hasSuffix("/") { candidate.removeLast() }
        let root = serverURL.lowercased()
        return candidate == root || candidate.hasPrefix(root + "/")
    }
}
