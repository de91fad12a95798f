import Foundation

/// A rectangle in WGS84 degrees.
struct Envelope: Sendable, Equatable {
    var xmin: Double
    var ymin: Double
    var xmax: Double
    var ymax: Double

    /// Normalizes swapped corners.
    init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = min(xmin, xmax)
        self.xmax = max(xmin, xmax)
        self.ymin = min(ymin, ymax)
        self.ymax = max(ymin, ymax)
    }

    /// True when the closed rectangles share at least one point.
    func intersects(_ other: Envelope) -> Bool {
        xmin <= other.xmax && other.xmin <= xmax && ymin <= other.ymax && other.ymin <= ymax
    }

    /// True when `other` lies entirely inside this rectangle.
    func contains(_ other: Envelope) -> Bool {
        xmin <= other.xmin && other.xmax <= xmax && ymin <= other.ymin && other.ymax <= ymax
    }
}

extension Parcel {
    /// The parcel's rectangle.
    var envelope: Envelope { Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax) }
}

/// The `geometry`/`geometryType`/`spatialRel`/`inSR` part of a query.
struct SpatialFilter: Sendable, Equatable {
    /// How parcel and query geometry must relate.
    enum Relation: String, Sendable {
        case intersects = "esriSpatialRelIntersects"
        case envelopeIntersects = "esriSpatialRelEnvelopeIntersects"
        case contains = "esriSpatialRelContains"
        case within = "esriSpatialRelWithin"
    }

    /// The query geometry as a rectangle (a point is a degenerate one).
    var envelope: Envelope
    var relation: Relation

    /// True when the parcel passes the filter. Parcels are rectangles, so every test is exact.
    func matches(_ parcel: Parcel) -> Bool {
        switch relation {
        case .intersects, .envelopeIntersects: return parcel.envelope.intersects(envelope)
        case .contains: return parcel.envelope.contains(envelope)
        case .within: return envelope.contains(parcel.envelope)
        }
    }

    /// Reads the filter from the query parameters; nil when there is no `geometry`.
    static func parse(_ request: IncomingRequest) throws(WhereError) -> SpatialFilter? {
        guard let geometry = request.parameter("geometry") else { return nil }
        let type = request.parameter("geometryType") ?? "esriGeometryEnvelope"
        let relationName = request.parameter("spatialRel") ?? Relation.intersects.rawValue
        guard let relation = Relation(rawValue: relationName) else {
            throw WhereError(message: "'spatialRel' \(relationName) is not supported")
        }
        if let inSR = request.parameter("inSR"), !isWGS84(inSR) {
            throw WhereError(message: "'inSR' must be 4326")
        }
        let trimmed = geometry.trimmingWhitespace()
        var envelope: Envelope
        if trimmed.hasPrefix("{") {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any] else {
                throw WhereError(message: "'geometry' is not valid JSON")
            }
            if let sr = object["spatialReference"] as? [String: Any], !isWGS84(sr) {
                throw WhereError(message: "geometry spatialReference must be 4326")
            }
            envelope = try parseObject(object, type: type)
        } else {
            let numbers = trimmed.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.allSatisfy({ $0 != nil }) else { throw WhereError(message: "'geometry' is invalid") }
            let values = numbers.compactMap { $0 }
            switch (type, values.count) {
            case ("esriGeometryEnvelope", 4):
                envelope = Envelope(xmin: values[0], ymin: values[1], xmax: values[2], ymax: values[3])
            case ("esriGeometryPoint", 2):
                envelope = Envelope(xmin: values[0], ymin: values[1], xmax: values[0], ymax: values[1])
            default:
                throw WhereError(message: "'geometry' does not match geometryType \(type)")
            }
        }
        guard [envelope.xmin, envelope.ymin, envelope.xmax, envelope.ymax].allSatisfy(\.isFinite) else {
            throw WhereError(message: "'geometry' is invalid")
        }
        return SpatialFilter(envelope: envelope, relation: relation)
    }

    private static func parseObject(_ object: [String: Any], type: String) throws(WhereError) -> Envelope {
        func number(_ key: String) throws(WhereError) -> Double {
            if let n = object[key] as? NSNumber { return n.doubleValue }
            if let s = object[key] as? String, let n = Double(s) { return n }
            throw WhereError(message: "'geometry' lacks \(key)")
        }
        switch type {
        case "esriGeometryEnvelope":
            return Envelope(
                xmin: try number("xmin"), ymin: try number("ymin"), xmax: try number("xmax"),
                ymax: try number("ymax"))
        case "esriGeometryPoint":
            let x = try number("x"), y = try number("y")
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        default:
            throw WhereError(message: "'geometryType' \(type) is not supported by the emulator")
        }
    }

    /// True for "4326", `{"wkid":4326}` or `{"latestWkid":4326}`.
    static func isWGS84(_ text: String) -> Bool {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "4326" { return true }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any] else {
            return false
        }
        return isWGS84(object)
    }

    /// True when a spatial reference object names WGS84.
    static func isWGS84(_ object: [String: Any]) -> Bool {
        let wkid = (object["latestWkid"] as? NSNumber)?.intValue ?? (object["wkid"] as? NSNumber)?.intValue
        return wkid == 4326
    }
}
