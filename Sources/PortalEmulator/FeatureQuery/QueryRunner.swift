/// Runs a FeatureServer layer `query` against the Parcels dataset.
enum QueryRunner {
    /// The answer JSON, or an ArcGIS 400 error for bad input.
    static func run(_ request: IncomingRequest) -> Result<JSONValue, ArcGISError> {
        do throws(WhereError) {
            return .success(try answer(request))
        } catch {
            return .failure(.invalidInput([error.message]))
        }
    }

    private static func answer(_ request: IncomingRequest) throws(WhereError) -> JSONValue {
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
        let countOnly = try flag(request, "returnCountOnly", default: false)
        let idsOnly = try flag(request, "returnIdsOnly", default: false)
        let returnGeometry = try flag(request, "returnGeometry", default: true)
        let outFields = try parseOutFields(request.parameter("outFields"))
        let order = try parseOrder(request.parameter("orderByFields"))
        let offset = try integer(request, "resultOffset") ?? 0
        let limit = try integer(request, "resultRecordCount")

        var rows = ParcelsDataset.parcels.filter { parcel in
            (clause.map { WhereEvaluator.matches($0, parcel) } ?? true)
                && (objectIDs.map { $0.contains(parcel.objectID) } ?? true)
                && (spatial.map { $0.matches(parcel) } ?? true)
        }
        if countOnly { return .object([("count", .number(rows.count))]) }
        if idsOnly {
            return .object([
                ("objectIdFieldName", .string("OBJECTID")),
                ("objectIds", .array(rows.map { .number($0.objectID) })),
            ])
        }
        rows.sort { a, b in
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
        let afterOffset = Array(rows.dropFirst(max(0, offset)))
        let page = limit.map { Array(afterOffset.prefix(max(0, $0))) } ?? afterOffset
        let exceeded = page.count < afterOffset.count

        var members: [(String, JSONValue)] = [
            ("objectIdFieldName", .string("OBJECTID")),
            ("uniqueIdField", .object([("name", .string("OBJECTID")), ("isSystemMaintained", .bool(true))])),
            ("globalIdFieldName", .string("")),
            ("geometryType", .string("esriGeometryPolygon")),
            ("spatialReference", .object([("wkid", .number(4326))])),
            ("fields", .array(outFields.map(\.json))),
        ]
        if exceeded { members.append(("exceededTransferLimit", .bool(true))) }
        members.append(
            (
                "features",
                .array(
                    page.map { parcel in
                        var feature: [(String, JSONValue)] = [
                            ("attributes", .object(outFields.map { ($0.rawValue, parcel.value($0).json) }))
                        ]
                        if returnGeometry { feature.append(("geometry", parcel.geometryJSON)) }
                        return .object(feature)
                    })
            ))
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
