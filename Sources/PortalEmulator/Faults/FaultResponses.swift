/// What each fault kind answers.
enum FaultResponses {
    /// The misbehaving answer for `kind` (latency never gets here: it only delays).
    static func response(_ kind: Fault.Kind, for request: IncomingRequest, context: EmulatorContext) -> OutgoingResponse
    {
        switch kind {
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
            let token: JSONValue = .string("emulated-token-with-no-lifetime")
            if request.components.last?.lowercased() == "token" {
                return .json(
                    .object([("access_token", token), ("expires_in", .string("soon")), ("username", .string("alice"))]))
            }
            return .json(.object([("token", token), ("expires", .string("soon")), ("ssl", .bool(true))]))
        case .latency:
            return Rendering.error(ArcGISError(code: 500, message: "latency is not an answer"), for: request)
        }
    }
}
