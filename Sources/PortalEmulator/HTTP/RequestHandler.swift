import Logging

/// The request pipeline: control endpoints, counting, latency, faults, then routing.
struct RequestHandler: Sendable {
    let context: EmulatorContext
    /// True for the application proxy's listener: every request passes its gate first.
    var behindProxy = false
    /// True for the location services' listener: it answers only the location services.
    var locationServices = false

    /// The answer to one request, logged at info level (``RequestLog``).
    func respond(_ incoming: IncomingRequest) async -> OutgoingResponse {
        var request = incoming
        request.viaProxy = behindProxy
        if !behindProxy, let header = request.headers["authorization"], let presented = IncomingRequest.bearer(header),
            context.entra.isKnown(presented)
        {
            request.authorizationIsEntraToken = true
        }
        let response = await answer(request)
        RequestLog(context: context).record(request, response: response)
        return response
    }

    /// The answer: control endpoints, counting, the proxy gate, latency, faults, then routing.
    private func answer(_ request: IncomingRequest) async -> OutgoingResponse {
        let admin = AdminRoutes(context: context)
        if !behindProxy, !locationServices, let answer = admin.control(request) { return answer }
        let carriesToken = request.carriesAnyToken
        context.counters.countRequest(path: request.path, host: request.host, carriesToken: carriesToken)
        if carriesToken { context.counters.update { $0.tokenBearingRequestsByOrigin[request.origin, default: 0] += 1 } }
        countAPIKeys(request)
        if behindProxy {
            if let refused = ApplicationProxyGate(context: context).check(request) { return refused }
        } else if request.authorizationIsEntraToken {
            context.counters.update { $0.entraTokensOutsideProxy += 1 }
        }
        let fired = context.faults.fire(path: request.path, carriesToken: carriesToken)
        let delay = max(0, context.configuration.latencyMilliseconds) + fired.latencyMilliseconds
        if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
        if let fault = fired.fault {
            context.logger.debug(
                "fault fired", metadata: ["kind": "\(fault.kind.rawValue)", "path": "\(request.path)"])
            return FaultResponses.response(fault, for: request, context: context)
        }
        return route(request)
    }

    /// Counts the configured API keys the request carries (in any header or parameter), by origin.
    private func countAPIKeys(_ request: IncomingRequest) {
        let labels = request.presentedTokens.compactMap { context.apiKeys.record(for: $0)?.key.label }
        guard !labels.isEmpty else { return }
        let origin = request.origin
        context.counters.update { c in
            for label in Set(labels) { c.apiKeyRequestsByOrigin[origin, default: [:]][label, default: 0] += 1 }
        }
    }

    /// Dispatches by the first path components.
    func route(_ request: IncomingRequest) -> OutgoingResponse {
        if locationServices { return LocationServicesRoutes(context: context).handle(request) }
        let components = request.components
        let lower = components.map { $0.lowercased() }
        switch lower.first {
        case "portal":
            guard lower.count >= 3, lower[1] == "sharing" else { return .notFound(request.path) }
            if lower[2] == "oauth2" {  // the sign-in pages also live at /sharing/oauth2/...
                return PortalRoutes(context: context).handle(request, rest: Array(components.dropFirst(2)))
            }
            guard lower[2] == "rest" else { return .notFound(request.path) }
            return PortalRoutes(context: context).handle(request, rest: Array(components.dropFirst(3)))
        case "server":
            return ServerRoutes(realm: .server, context: context).handle(request, rest: Array(components.dropFirst()))
        case "standalone":
            return ServerRoutes(realm: .standalone, context: context).handle(
                request, rest: Array(components.dropFirst()))
        case "claimant":
            return ServerRoutes(realm: .claimant, context: context).handle(request, rest: Array(components.dropFirst()))
        case "claimant-proxy":
            return ServerRoutes(realm: .claimant, context: context, claim: .portalProxy).handle(
                request, rest: Array(components.dropFirst()))
        case "claimant-path":
            return ServerRoutes(realm: .claimant, context: context, claim: .otherPath).handle(
                request, rest: Array(components.dropFirst()))
        case "emulator":
            return AdminRoutes(context: context).handle(request)
        case "entra" where !request.viaProxy:
            return EntraIdentityProvider(context: context).handle(request, rest: Array(components.dropFirst()))
        default:
            return .notFound(request.path)
        }
    }
}
