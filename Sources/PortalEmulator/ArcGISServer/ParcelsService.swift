/// The service and layer descriptions of `Parcels/FeatureServer`.
enum ParcelsService {
    /// The server's release.
    static let currentVersion = 11.3

    /// `.../Parcels/FeatureServer`, reporting `maxRecordCount`.
    static func serviceJSON(_ maxRecordCount: Int) -> JSONValue {
        .object([
            ("currentVersion", .double(currentVersion)),
            ("serviceDescription", .string("Emulated parcels around Redlands, California.")),
            ("hasVersionedData", .bool(false)),
            ("supportsDisconnectedEditing", .bool(false)),
            ("maxRecordCount", .number(maxRecordCount)),
            ("supportedQueryFormats", .string("JSON, geoJSON, PBF")),
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

    /// `.../Parcels/FeatureServer/0`: what GDAL's ESRIJSON driver and the ArcGIS API for Python's
    /// `FeatureLayer` read (fields, geometry type, extent, paging and query capabilities).
    static func layerJSON(_ maxRecordCount: Int) -> JSONValue {
        .object([
            ("currentVersion", .double(currentVersion)),
            ("id", .number(0)),
            ("name", .string("Parcels")),
            ("type", .string("Feature Layer")),
            ("description", .string("Emulated parcels around Redlands, California.")),
            ("geometryType", .string("esriGeometryPolygon")),
            ("sourceSpatialReference", .object([("wkid", .number(4326)), ("latestWkid", .number(4326))])),
            ("hasZ", .bool(false)),
            ("hasM", .bool(false)),
            ("objectIdField", .string("OBJECTID")),
            ("uniqueIdField", .object([("name", .string("OBJECTID")), ("isSystemMaintained", .bool(true))])),
            ("globalIdField", .string("")),
            ("displayField", .string("APN")),
            ("extent", ParcelsDataset.extentJSON),
            ("fields", .array(ParcelField.allCases.map(\.json))),
            ("capabilities", .string("Query")),
            ("maxRecordCount", .number(maxRecordCount)),
            ("standardMaxRecordCount", .number(maxRecordCount)),
            ("tileMaxRecordCount", .number(maxRecordCount)),
            ("maxRecordCountFactor", .number(1)),
            ("supportedQueryFormats", .string("JSON, geoJSON")),
            ("supportsAdvancedQueries", .bool(true)),
            ("supportsStatistics", .bool(false)),
            ("supportsPagination", .bool(true)),
            ("useStandardizedQueries", .bool(true)),
            ("hasAttachments", .bool(false)),
            ("htmlPopupType", .string("esriServerHTMLPopupTypeNone")),
            ("types", .array([])),
            ("templates", .array([])),
            ("relationships", .array([])),
            ("isDataVersioned", .bool(false)),
            ("supportsRollbackOnFailureParameter", .bool(false)),
            (
                "advancedQueryCapabilities",
                .object([
                    ("supportsPagination", .bool(true)),
                    ("supportsOrderBy", .bool(true)),
                    ("supportsReturningQueryExtent", .bool(true)),
                    ("supportsQueryWithResultType", .bool(false)),
                    ("supportsDistinct", .bool(false)),
                    ("supportsStatistics", .bool(false)),
                    ("supportsCountDistinct", .bool(false)),
                    ("supportsQueryWithDistance", .bool(false)),
                    ("supportsPaginationOnAggregatedQueries", .bool(false)),
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
