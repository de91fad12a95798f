/// What each fault kind answers.
enum FaultResponses {
    /// The misbehaving answer for `kind` (latency never gets here: it only delays).
    static func response(_ fault: Fault, for request: IncomingRequest, context: EmulatorContext) -> OutgoingResponse {
        switch fault.kind {
        case .http500:
            return .html(
                "<html><head><title>500 Internal Server Error</title></head>"
                    + "<body><h1>Internal Server Error</h1><p>Injected by portal-emulator.</p></body></html>\n",
                status: 500)
        case .malformedJSON:
            return OutgoingResponse(
                status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
                body: Array("{\"currentVersion\":11.3,\"authInfo\":{\"isTokenBasedSecurity\":tr".utf8))
        case .html:
            return .html(
                Rendering.page(
                    heading: "Service temporarily unavailable",
                    json: .object([("message", .string("Injected HTML answer from portal-emulator"))])))
        case .connectionReset:
            return .reset
        case .rejectAllTokens:
            if request.components.last?.lowercased() == "query" { context.counters.countQuery("rejected") }
            return Rendering.error(.invalidToken, for: request)
        case .lifetimeNotANumber:
            return lifetimeAnswer(.string("soon"), for: request)
        case .lifetimeOutOfRange:
            return lifetimeAnswer(.raw("1e308"), for: request)
        case .redirect:
            return .redirect(to: fault.location ?? "https://localhost/")
        case .page:
            return OutgoingResponse(
                status: 200,
                headers: [
                    ("Content-Type", "text/html; charset=utf-8"), ("Referrer-Policy", "unsafe-url"),
                    ("Refresh", "3600"), ("Set-Cookie", "hostile=1; Path=/"), ("Access-Control-Allow-Origin", "*"),
                    ("Link", "</hostile.css>; rel=preload; as=style"),
                    ("Content-Security-Policy", "script-src * 'unsafe-inline'"),
                ],
                body: Array((fault.body ?? "").utf8))
        case .latency:
            return Rendering.error(ArcGISError(code: 500, message: "latency is not an answer"), for: request)
        }
    }

    /// A token answer whose lifetime is `lifetime`: `expires_in` for `oauth2/token`, else `expires`.
    private static func lifetimeAnswer(_ lifetime: JSONValue, for request: IncomingRequest) -> OutgoingResponse {
        let token: JSONValue = .string("emulated-token-with-an-odd-lifetime")
        if request.components.last?.lowercased() == "token" {
            return .json(.object([("access_token", token), ("expires_in", lifetime), ("username", .string("alice"))]))
        }
        return .json(.object([("token", token), ("expires", lifetime), ("ssl", .bool(true))]))
    }
}
