import Logging

/// One info-level line per request: method, path (never the query string), status, and which
/// credential was presented and how. Never a token, password, code, secret or parameter value.
struct RequestLog: Sendable {
    let context: EmulatorContext

    /// Logs `request` and the status of `response`.
    func record(_ request: IncomingRequest, response: OutgoingResponse) {
        guard context.logger.logLevel <= .info else { return }
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.path)",
                "status": "\(response.resetConnection ? "reset" : String(response.status))",
                "credential": "\(credential(request))",
            ])
    }

    /// The kinds of credential the request carries, joined with `+`, or `none`: where an ArcGIS
    /// token travels (`x-esri-authorization`, `bearer`, `token`) with the kind of token it is
    /// (`portal`, `server`, `standalone`, `oauth`, `app`, `apiKey`, or `unknown`), `proxy` for the
    /// application proxy's Entra token, `basic`, and what a form posts to sign in (`password`,
    /// `oauth-code`, `refresh-token`, `app-secret`).
    func credential(_ request: IncomingRequest) -> String {
        var kinds: [String] = []
        if let carrier = request.tokenCarrier, let token = request.token {
            let kind =
                context.tokens.record(for: token)?.kind.rawValue
                ?? (context.apiKeys.record(for: token) != nil ? TokenKind.apiKey.rawValue : "unknown")
            kinds.append("\(carrier):\(kind)")
        }
        if let header = request.headers["authorization"]?.trimmingWhitespace().lowercased() {
            if request.viaProxy || request.authorizationIsEntraToken {
                kinds.append("proxy")
            } else if header.hasPrefix("basic ") {
                kinds.append("basic")
            } else if !header.hasPrefix("bearer ") {
                kinds.append("authorization")
            }
        }
        let posted: [(String, String)] = [
            ("password", "password"), ("code", "oauth-code"), ("refresh_token", "refresh-token"),
            ("client_secret", "app-secret"),
        ]
        for (parameter, kind) in posted where request.parameter(parameter) != nil { kinds.append(kind) }
        return kinds.isEmpty ? "none" : kinds.joined(separator: "+")
    }
}
