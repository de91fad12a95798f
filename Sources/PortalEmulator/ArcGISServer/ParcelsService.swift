/// The service and layer descriptions of `Parcels/FeatureServer`.
enum ParcelsService {
    /// The server's release.
    static let currentVersion = 11.3

    /// `.../Parcels/FeatureServer`
    static var serviceJSON: JSONValue {
        .object([
            ("currentVersion", .double(currentVersion)),
            ("serviceDescription", .string("Emulated parcels around Redlands, California.")),
            ("hasVersionedData", .bool(false)),
            ("supportsDisconnectedEditing", .bool(false)),
            ("maxRecordCount", .number(1000)),
            ("supportedQueryFormats", .string("JSON")),
            ("capabilities", .string("Query")),
            ("description", .string("")),
            ("copyrightText", .string("portal-emulator")),
            ("spatialReference", .object([("wkid", .number(4326))])),
            ("initialExtent", ParcelsDataset.extentJSON),
            ("fullExtent", ParcelsDataset.extentJSON),
            ("units", .string("esriDecimalDegrees")),
            (
                "layers",
                .array([
                    .object([
                        ("id", .number(0)), ("name", .string("Parcels")), ("parentLayerId", .number(-1)),
                        ("defaultVisibility", .bool(true)), ("subLayerIds", .null), ("minScale", .number(0)),
                        ("maxScale", .number(0)), ("geometryType", .string("esriGeometryPolygon")),
                    ])
                ])
            ),
            ("tables", .array([])),
        ])
    }

    /// `.../Parcels/FeatureServer/0`
    static var layerJSON: JSONValue {
        .object([
            ("currentVersion", .double(currentVersion)),
            ("id", .number(0)),
            ("name", .string("Parcels")),
            ("type", .string("Feature Layer")),
            ("geometryType", .string("esriGeometryPolygon")),
            ("objectIdField", .string("OBJECTID")),
            ("displayField", .string("APN")),
            ("extent", ParcelsDataset.extentJSON),
            ("fields", .array(ParcelField.allCases.map(\.json))),
            ("capabilities", .string("Query")),
            ("maxRecordCount", .number(1000)),
            ("supportedQueryFormats", .string("JSON")),
            ("supportsAdvancedQueries", .bool(true)),
            (
                "advancedQueryCapabilities",
                .object([
                    ("supportsPagination", .bool(true)),
                    ("supportsOrderBy", .bool(true)),
                    ("supportsReturningQueryExtent", .bool(false)),
                ])
            ),
        ])
    }

    /// `.../rest/services`
    static var catalogJSON: JSONValue {
        .object([
            ("currentVersion", .double(currentVersion)),
            ("folders", .array([])),
            ("services", .array([.object([("name", .string("Parcels")), ("type", .string("FeatureServer"))])])),
        ])
    }
}
