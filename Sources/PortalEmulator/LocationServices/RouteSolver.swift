import Foundation

/// The emulated World Route service: its root description and `solve` for stops given as
/// `x,y;x,y` (WGS 84), answering a straight-line route between them.
enum RouteSolver {
    /// The most stops a solve accepts (the real service's default limit).
    static let maxStops = 150
    /// The longest `stops` parameter read, in characters.
    static let maxInput = 8192

    /// `.../NAServer/Route_World?f=json`
    static var serviceJSON: JSONValue {
        .object([
            ("currentVersion", .double(ParcelsService.currentVersion)),
            ("layerName", .string("Route")), ("layerType", .string("esriNAServerRouteLayer")),
            ("impedance", .string("TravelTime")), ("supportedTravelModes", .array([])),
            ("serviceLimits", .object([("maximumStops", .number(maxStops))])),
        ])
    }

    /// `solve`: the route through the stops in order, with length and an estimated travel time.
    static func solve(_ request: IncomingRequest) -> Result<JSONValue, ArcGISError> {
        guard let text = request.parameter("stops"), text.count <= maxInput else {
            return .failure(.invalidInput(["'stops' must be given as x,y;x,y (at most \(maxStops) stops)."]))
        }
        let stops = text.split(separator: ";").map {
            $0.split(separator: ",").compactMap { Double(String($0).trimmingWhitespace()) }
        }
        guard stops.count >= 2, stops.count <= maxStops,
            stops.allSatisfy({ $0.count == 2 && abs($0[0]) <= 180 && abs($0[1]) <= 90 })
        else {
            return .failure(.invalidInput(["'stops' must be given as x,y;x,y (2 to \(maxStops) stops)."]))
        }
        var kilometers = 0.0
        for index in 1..<stops.count { kilometers += distance(stops[index - 1], stops[index]) }
        let minutes = kilometers / 50 * 60
        let path: JSONValue = .array(stops.map { .array([.double($0[0]), .double($0[1])]) })
        let route: JSONValue = .object([
            (
                "attributes",
                .object([
                    ("ObjectID", .number(1)), ("Name", .string("Location 1 - Location \(stops.count)")),
                    ("Total_TravelTime", .double(minutes)), ("Total_Kilometers", .double(kilometers)),
                    ("Total_Miles", .double(kilometers / 1.609344)),
                ])
            ),
            ("geometry", .object([("paths", .array([path]))])),
        ])
        return .success(
            .object([
                ("checksum", .string("portal-emulator")),
                (
                    "routes",
                    .object([
                        ("fieldAliases", .object([])), ("geometryType", .string("esriGeometryPolyline")),
                        ("spatialReference", .object([("wkid", .number(4326)), ("latestWkid", .number(4326))])),
                        ("features", .array([route])),
                    ])
                ),
                ("messages", .array([])),
            ]))
    }

    /// Great-circle distance in kilometres between two (x, y) points in degrees.
    static func distance(_ a: [Double], _ b: [Double]) -> Double {
        let radians = Double.pi / 180
        let dLat = (b[1] - a[1]) * radians
        let dLon = (b[0] - a[0]) * radians
        let h = pow(sin(dLat / 2), 2) + cos(a[1] * radians) * cos(b[1] * radians) * pow(sin(dLon / 2), 2)
        return 2 * 6371.0088 * asin(min(1, h.squareRoot()))
    }
}
