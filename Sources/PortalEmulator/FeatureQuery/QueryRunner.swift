/// Runs a FeatureServer layer `query` against the Parcels dataset.
enum QueryRunner {
    /// The answer JSON (Esri JSON, or GeoJSON for `f=geojson`), or an ArcGIS 400 error for bad
    /// input. Pages hold at most `maxRecordCount` features (`resultRecordCount` may ask for
    /// fewer); a page that leaves features out says `exceededTransferLimit`.
    static func run(_ request: IncomingRequest, maxRecordCount: Int = 1000) -> Result<JSONValue, ArcGISError> {
        do throws(WhereError) {
            return .success(try answer(request, maxRecordCount: max(1, maxRecordCount)))
        } catch {
            return .failure(.invalidInput([error.message]))
        }
    }

    /// True when the request asks for GeoJSON (`f=geojson`).
    static func wantsGeoJSON(_ request: IncomingRequest) -> Bool {
        request.parameter("f")?.lowercased() == "geojson"
    }

    private static func answer(_ request: IncomingRequest, maxRecordCount: Int) throws(WhereError) -> JSONValue {
        let rows = try matchingRows(request)
        let countOnly = try flag(request, "returnCountOnly", default: false)
        if try flag(request, "returnExtentOnly", default: false) {
            var members: [(String, JSONValue)] = [("extent", extentJSON(of: rows))]
            if countOnly { members.insert(("count", .number(rows.count)), at: 0) }
            return .object(members)
        }
        if countOnly { return .object([("count", .number(rows.count))]) }
        if try flag(request, "returnIdsOnly", default: false) {
            return .object([
                ("objectIdFieldName", .string("OBJECTID")),
                ("objectIds", .array(rows.map { .number($0.objectID) })),
            ])
        }
        let returnGeometry = try flag(request, "returnGeometry", default: true)
        let outFields = try parseOutFields(request.parameter("outFields"))
        let sorted = try sort(rows, by: parseOrder(request.parameter("orderByFields")))
        let offset = try integer(request, "resultOffset") ?? 0
        let limit = min(try integer(request, "resultRecordCount") ?? maxRecordCount, maxRecordCount)
        let afterOffset = Array(sorted.dropFirst(max(0, offset)))
        let page = Array(afterOffset.prefix(max(0, limit)))
        let exceeded = page.count < afterOffset.count
        if wantsGeoJSON(request) {
            return geoJSON(page, fields: outFields, geometry: returnGeometry, exceeded: exceeded)
        }
        return esriJSON(page, fields: outFields, geometry: returnGeometry, exceeded: exceeded)
    }

    /// The parcels that pass `where`, `objectIds` and the spatial filter (one of them is required).
    private static func matchingRows(_ request: IncomingRequest) throws(WhereError) -> [Parcel] {
        let whereText = request.parameter("where")
        let objectIDs = try parseObjectIDs(request.parameter("objectIds"))
        let spatial = try SpatialFilter.parse(request)
        guard whereText != nil || objectIDs != nil || spatial != nil else {
            throw WhereError(message: "'where' parameter not specified")
        }
        let clause: WhereExpression?
        do throws(WhereError) {
            clause = try whereText.map { text throws(WhereError) in try WhereParser.parse(text) }
        } catch {
            throw WhereError(message: "'where' parameter is invalid: \(error.message)")
        }
        if let outSR = request.parameter("outSR"), !SpatialFilter.isWGS84(outSR) {
            throw WhereError(message: "'outSR' must be 4326")
        }
        return ParcelsDataset.parcels.filter { parcel in
            (clause.map { WhereEvaluator.matches($0, parcel) } ?? true)
                && (objectIDs.map { $0.contains(parcel.objectID) } ?? true)
                && (spatial.map { $0.matches(parcel) } ?? true)
        }
    }

    /// `rows` in `orderByFields` order (NULLs first), then by OBJECTID.
    private static func sort(_ rows: [Parcel], by order: [(ParcelField, Bool)]) -> [Parcel] {
        rows.sorted { a, b in
            for (field, descending) in order {
                if let c = WhereEvaluator.compare(a.value(field), b.value(field)), c != 0 {
                    return descending ? c > 0 : c < 0
                }
                // NULLs sort first.
                if a.value(field) == .null, b.value(field) != .null { return !descending }
                if a.value(field) != .null, b.value(field) == .null { return descending }
            }
            return a.objectID < b.objectID
        }
    }

    /// The envelope of `rows` (`"NaN"` corners when there are none, as ArcGIS answers).
    static func extentJSON(of rows: [Parcel]) -> JSONValue {
        let reference: (String, JSONValue) = ("spatialReference", .object([("wkid", .number(4326))]))
        guard let xmin = rows.map(\.xmin).min(), let ymin = rows.map(\.ymin).min(),
            let xmax = rows.map(\.xmax).max(), let ymax = rows.map(\.ymax).max()
        else {
            return .object(["xmin", "ymin", "xmax", "ymax"].map { ($0, JSONValue.string("NaN")) } + [reference])
        }
        return .object([
            ("xmin", .double(xmin)), ("ymin", .double(ymin)), ("xmax", .double(xmax)), ("ymax", .double(ymax)),
            reference,
        ])
    }

    /// A page as Esri JSON (`f=json`).
    private static func esriJSON(_ page: [Parcel], fields: [ParcelField], geometry: Bool, exceeded: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("objectIdFieldName", .string("OBJECTID")),
            ("uniqueIdField", .object([("name", .string("OBJECTID")), ("isSystemMaintained", .bool(true))])),
            ("globalIdFieldName", .string("")),
            ("geometryType", .string("esriGeometryPolygon")),
            ("spatialReference", .object([("wkid", .number(4326)), ("latestWkid", .number(4326))])),
            ("fields", .array(fields.map(\.json))),
        ]
        if exceeded { members.append(("exceededTransferLimit", .bool(true))) }
        let features = page.map { parcel in
            var feature: [(String, JSONValue)] = [
                ("attributes", .object(fields.map { ($0.rawValue, parcel.value($0).json) }))
            ]
            if geometry { feature.append(("geometry", parcel.geometryJSON)) }
            return JSONValue.object(feature)
        }
        members.append(("features", .array(features)))
        return .object(members)
    }

    /// A page as GeoJSON (`f=geojson`): a FeatureCollection whose `properties` say
    /// `exceededTransferLimit` when more features follow, as ArcGIS writes it.
    private static func geoJSON(_ page: [Parcel], fields: [ParcelField], geometry: Bool, exceeded: Bool) -> JSONValue {
        let features = page.map { parcel in
            JSONValue.object([
                ("type", .string("Feature")), ("id", .number(parcel.objectID)),
                ("geometry", geometry ? parcel.geoJSONGeometry : .null),
                ("properties", .object(fields.map { ($0.rawValue, parcel.value($0).json) })),
            ])
        }
        var members: [(String, JSONValue)] = [("type", .string("FeatureCollection"))]
        if exceeded { members.append(("properties", .object([("exceededTransferLimit", .bool(true))]))) }
        members.append(("features", .array(features)))
        return .object(members)
    }

    private static func flag(_ request: IncomingRequest, _ name: String, default value: Bool) throws(WhereError) -> Bool
    {
        guard let text = request.parameter(name)?.lowercased() else { return value }
        switch text {
        case "true": return true
        case "false": return false
        default: throw WhereError(message: "'\(name)' must be true or false")
        }
    }

    private static func integer(_ request: IncomingRequest, _ name: String) throws(WhereError) -> Int? {
        guard let text = request.parameter(name) else { return nil }
        guard let value = Int(text.trimmingWhitespace()), value >= 0 else {
            throw WhereError(message: "'\(name)' must be a non-negative integer")
        }
        return value
    }

    private static func parseObjectIDs(_ text: String?) throws(WhereError) -> Set<Int>? {
        guard let text else { return nil }
        var ids = Set<Int>()
        for part in text.split(separator: ",") {
            guard let id = Int(String(part).trimmingWhitespace()) else {
                throw WhereError(message: "'objectIds' is invalid")
            }
            ids.insert(id)
        }
        return ids
    }

    /// `*`, a comma-separated list, or (when absent) just OBJECTID; layer order is kept.
    private static func parseOutFields(_ text: String?) throws(WhereError) -> [ParcelField] {
        guard let text else { return [.objectID] }
        let names = text.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        if names.contains("*") { return ParcelField.allCases }
        var fields = Set<ParcelField>()
        for name in names {
            guard let field = ParcelField.named(name) else { throw WhereError(message: "Invalid field: \(name)") }
            fields.insert(field)
        }
        return ParcelField.allCases.filter(fields.contains)
    }

    /// `Field [ASC|DESC], ...`
    private static func parseOrder(_ text: String?) throws(WhereError) -> [(ParcelField, Bool)] {
        guard let text else { return [] }
        var order: [(ParcelField, Bool)] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ").map(String.init)
            guard let name = words.first, let field = ParcelField.named(name), words.count <= 2 else {
                throw WhereError(message: "'orderByFields' is invalid")
            }
            let direction = words.count == 2 ? words[1].uppercased() : "ASC"
            guard direction == "ASC" || direction == "DESC" else {
                throw WhereError(message: "'orderByFields' is invalid")
            }
            order.append((field, direction == "DESC"))
        }
        return order
    }
}
