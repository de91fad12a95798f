/// The location services on their own listener (as geocode-api.arcgis.com, route-api.arcgis.com
/// and basemapstyles-api.arcgis.com are hosts of their own): `/arcgis/rest/services/World/GeocodeServer`,
/// `/arcgis/rest/services/World/Route/NAServer/Route_World` and
/// `/arcgis/rest/services/styles/v2/styles/...`. Service roots answer without a token; operations
/// need an API key or a user token holding the service's `premium:user:*` privilege.
struct LocationServicesRoutes: Sendable {
    let context: EmulatorContext

    /// The geocoding service's path on the listener.
    static let geocodePath = "/arcgis/rest/services/World/GeocodeServer"
    /// The routing service's path on the listener.
    static let routePath = "/arcgis/rest/services/World/Route/NAServer/Route_World"
    /// The basemap styles service's path on the listener (a style's path follows, e.g. `/arcgis/navigation`).
    static let stylesPath = "/arcgis/rest/services/styles/v2/styles"

    /// One location service: where it lives, the privilege it needs and the name its 403 names.
    private struct Service {
        var privilege: String
        var accessName: String
    }

    private static let geocode = Service(privilege: EmulatorAPIKey.geocode, accessName: "world.geocodeserver")
    private static let route = Service(privilege: EmulatorAPIKey.networkAnalysis, accessName: "world/route.naserver")
    private static let styles = Service(privilege: EmulatorAPIKey.basemaps, accessName: "styles")

    /// Answers a request on the location services' listener.
    func handle(_ request: IncomingRequest) -> OutgoingResponse {
        let lower = request.components.map { $0.lowercased() }
        guard lower.count >= 3, lower[0] == "arcgis", lower[1] == "rest" else { return .notFound(request.path) }
        let rest = Array(lower.dropFirst(2))
        switch rest {
        case ["info"]:
            return Rendering.resource(
                .object([
                    ("currentVersion", .double(ParcelsService.currentVersion)), ("fullVersion", .string("11.3.0")),
                ]),
                for: request)
        case ["services", "world", "geocodeserver"]:
            return Rendering.resource(Geocoder.serviceJSON, for: request)
        case ["services", "world", "geocodeserver", "findaddresscandidates"]:
            return secured(request, Self.geocode) { Rendering.resource(Geocoder.candidates(request), for: request) }
        case ["services", "world", "route", "naserver", "route_world"]:
            return Rendering.resource(RouteSolver.serviceJSON, for: request)
        case ["services", "world", "route", "naserver", "route_world", "solve"]:
            return secured(request, Self.route) {
                switch RouteSolver.solve(request) {
                case .success(let json): return Rendering.resource(json, for: request)
                case .failure(let error): return Rendering.error(error, for: request)
                }
            }
        default:
            if rest.starts(with: ["services", "styles", "v2", "styles"]), rest.count > 4, rest.count <= 8 {
                return secured(request, Self.styles) { .json(Self.style(rest.dropFirst(4).joined(separator: "/"))) }
            }
            return Rendering.error(
                ArcGISError(code: 400, message: "Invalid URL", details: ["Invalid URL"]), for: request)
        }
    }

    /// Runs `body` when the request's token reaches `service`; otherwise the ArcGIS error the
    /// real service sends (499, 498, or 403 naming the service), as JSON whatever `f` says for
    /// the basemap styles service (which speaks only JSON).
    private func secured(
        _ request: IncomingRequest, _ service: Service, _ body: () -> OutgoingResponse
    )
        -> OutgoingResponse
    {
        var refusal: ArcGISError
        switch context.requireToken(request, realm: .locationServices, apiKeys: .needs(service.privilege)) {
        case .success: return body()
        case .failure(let error) where error == .noPermission:
            refusal = ArcGISError(
                code: 403, message: "User does not have permissions to access '\(service.accessName)'.")
        case .failure(let error): refusal = error
        }
        return service.privilege == EmulatorAPIKey.basemaps
            ? .json(refusal.json) : Rendering.error(refusal, for: request)
    }

    /// A minimal Mapbox GL style, as the basemap styles service answers (`name` is the style path).
    private static func style(_ name: String) -> JSONValue {
        .object([
            ("version", .number(8)), ("name", .string(name)), ("sources", .object([])), ("layers", .array([])),
        ])
    }
}
