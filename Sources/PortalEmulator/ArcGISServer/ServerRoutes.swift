/// An ArcGIS Server: the federated one under `/server`, the standalone one under `/standalone`
/// (with its own token service), or the claimant under `/claimant` (it names the portal as its
/// owner, as any host could, but the portal does not federate it; `/claimant-proxy` and
/// `/claimant-path` also name a token service of their choosing on the portal's host).
struct ServerRoutes: Sendable {
    /// The token service a claimant names in its `rest/info`.
    enum TokenServiceClaim: Sendable {
        /// The portal's own generateToken (`/claimant`).
        case portalOwn
        /// The portal's proxy, forwarding to another host (`/claimant-proxy`).
        case portalProxy
        /// Another path on the portal's host (`/claimant-path`).
        case otherPath
    }

    /// `.server` for the federated server, `.standalone` or `.claimant` for the others.
    let realm: TokenRealm
    let context: EmulatorContext
    /// The token service a claimant names (the others name their own).
    var claim: TokenServiceClaim = .portalOwn

    /// Answers a request; `rest` holds the path components after `/server` or `/standalone`.
    func handle(_ request: IncomingRequest, rest: [String]) -> OutgoingResponse {
        let lower = rest.map { $0.lowercased() }
        if realm == .standalone, lower == ["tokens", "generatetoken"] {
            return TokenService(kind: .standalone, context: context).generate(request)
        }
        if realm == .claimant, request.token != nil { context.counters.update { $0.tokensSentToClaimant += 1 } }
        guard lower.first == "rest" else { return notFound(request) }
        let path = Array(lower.dropFirst())
        switch path {
        case ["info"]: return Rendering.resource(info(for: request), for: request)
        case ["services"]: return Rendering.resource(ParcelsService.catalogJSON, for: request)
        case ["services", "parcels", "featureserver"]:
            return secured(request) { _ in Rendering.resource(ParcelsService.serviceJSON(limits), for: request) }
        case ["services", "parcels", "featureserver", "0"]:
            return secured(request) { _ in Rendering.resource(ParcelsService.layerJSON(limits), for: request) }
        case ["services", "parcels", "featureserver", "0", "query"]:
            return query(request)
        default:
            return notFound(request)
        }
    }

    /// `/rest/info`: the federated server names its owning portal, the standalone one its own token service.
    func info(for request: IncomingRequest) -> JSONValue {
        let urls = context.urls(for: request)
        var members: [(String, JSONValue)] = [
            ("currentVersion", .double(ParcelsService.currentVersion)),
            ("fullVersion", .string("11.3.0")),
        ]
        let tokenServicesURL: String
        switch realm {
        case .standalone:
            tokenServicesURL = urls.standaloneServerURL + "/tokens/generateToken"
        case .server, .portal, .claimant, .locationServices:
            members.append(("owningSystemUrl", .string(urls.portalURL)))
            switch claim {
            case .portalOwn: tokenServicesURL = urls.portalURL + "/sharing/rest/generateToken"
            case .portalProxy: tokenServicesURL = urls.portalURL + "/sharing/proxy?" + urls.baseURL + "/collect"
            case .otherPath: tokenServicesURL = urls.portalURL + "/sharing/collect/generateToken"
            }
        }
        members.append(
            (
                "authInfo",
                .object([
                    ("isTokenBasedSecurity", .bool(true)),
                    ("tokenServicesUrl", .string(tokenServicesURL)),
                    ("shortLivedTokenValidity", .number(60)),
                ])
            ))
        return .object(members)
    }

    private func secured(_ request: IncomingRequest, _ body: (TokenRecord) -> OutgoingResponse) -> OutgoingResponse {
        switch context.requireToken(request, realm: realm) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let record): return body(record)
        }
    }

    private func query(_ request: IncomingRequest) -> OutgoingResponse {
        switch context.requireToken(request, realm: realm) {
        case .failure(let error):
            if error.code == 498 || error.code == 499 { context.counters.countQuery("rejected") }
            return Rendering.error(error, for: request)
        case .success(let record):
            let geoJSON = QueryRunner.wantsGeoJSON(request)
            switch QueryRunner.run(request, maxRecordCount: context.configuration.maxRecordCount) {
            case .failure(let error):
                return geoJSON ? .json(error.json) : Rendering.error(error, for: request)
            case .success(let json):
                context.counters.countQuery(record.kind.rawValue)
                guard geoJSON else { return Rendering.resource(json, for: request) }
                var response = OutgoingResponse.json(json)
                response.headers = [("Content-Type", "application/geo+json; charset=utf-8")]
                return response
            }
        }
    }

    /// The paging limit the layer and service descriptions report.
    private var limits: Int { max(1, context.configuration.maxRecordCount) }

    private func notFound(_ request: IncomingRequest) -> OutgoingResponse {
        Rendering.error(
            ArcGISError(
                code: 404, message: "Requested operation is not supported by this service.",
                details: ["No such resource: \(request.path)"]),
            for: request)
    }
}
