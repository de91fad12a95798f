/// The emulated World Geocoding Service: its root description and `findAddressCandidates`.
enum Geocoder {
    /// The longest `SingleLine` read, in characters.
    static let maxInput = 200

    /// `.../World/GeocodeServer?f=json`: what clients read before geocoding.
    static var serviceJSON: JSONValue {
        .object([
            ("currentVersion", .double(ParcelsService.currentVersion)),
            ("serviceDescription", .string("Emulated World Geocoding Service (portal-emulator).")),
            (
                "addressFields",
                .array([
                    .object([
                        ("name", .string("Address")), ("type", .string("esriFieldTypeString")),
                        ("alias", .string("Address or Place")), ("required", .bool(false)), ("length", .number(100)),
                    ])
                ])
            ),
            (
                "singleLineAddressField",
                .object([
                    ("name", .string("SingleLine")), ("type", .string("esriFieldTypeString")),
                    ("alias", .string("Single Line Input")), ("required", .bool(false)), ("length", .number(200)),
                ])
            ),
            ("candidateFields", .array([])),
            ("spatialReference", .object([("wkid", .number(4326)), ("latestWkid", .number(4326))])),
            ("locatorProperties", .object([("MaxBatchSize", .number(1000)), ("SuggestedBatchSize", .number(150))])),
            ("capabilities", .string("Geocode,ReverseGeocode,Suggest")),
        ])
    }

    /// `findAddressCandidates`: one plausible candidate in Redlands for any non-empty
    /// `SingleLine` (or `address`), none for an empty one. The same text always gives the same point.
    static func candidates(_ request: IncomingRequest) -> JSONValue {
        let spatialReference: JSONValue = .object([("wkid", .number(4326)), ("latestWkid", .number(4326))])
        guard let raw = request.parameter("singleline") ?? request.parameter("address") else {
            return .object([("spatialReference", spatialReference), ("candidates", .array([]))])
        }
        let text = String(raw.prefix(maxInput)).trimmingWhitespace()
        let (x, y) = location(for: text)
        let address = text.lowercased().contains("380 new york") ? "380 New York St, Redlands, California, 92373" : text
        let candidate: JSONValue = .object([
            ("address", .string(address)),
            ("location", .object([("x", .double(x)), ("y", .double(y))])),
            ("score", .number(100)),
            ("attributes", .object([("Match_addr", .string(address)), ("Addr_type", .string("PointAddress"))])),
            (
                "extent",
                .object([
                    ("xmin", .double(x - 0.001)), ("ymin", .double(y - 0.001)), ("xmax", .double(x + 0.001)),
                    ("ymax", .double(y + 0.001)),
                ])
            ),
        ])
        return .object([("spatialReference", spatialReference), ("candidates", .array([candidate]))])
    }

    /// Esri's Redlands campus for "380 New York St", else a point near it derived from the text (FNV-1a).
    static func location(for text: String) -> (Double, Double) {
        if text.lowercased().contains("380 new york") { return (-117.19569, 34.05608) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.lowercased().utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let dx = Double(hash % 10_000) / 10_000 * 0.05
        let dy = Double((hash / 10_000) % 10_000) / 10_000 * 0.05
        return (-117.22 + dx, 34.03 + dy)
    }
}
