/// The fields of the Parcels layer.
enum ParcelField: String, CaseIterable, Sendable {
    case objectID = "OBJECTID"
    case apn = "APN"
    case useType = "UseType"
    case owner = "Owner"
    case areaSqFt = "AreaSqFt"
    case yearBuilt = "YearBuilt"

    /// Numeric fields compare as numbers, the others as strings.
    var isNumeric: Bool {
        switch self {
        case .objectID, .areaSqFt, .yearBuilt: return true
        case .apn, .useType, .owner: return false
        }
    }

    /// Looks a field up case-insensitively, as ArcGIS does.
    static func named(_ name: String) -> ParcelField? {
        allCases.first { $0.rawValue.caseInsensitiveCompare(name) }
    }

    /// The layer's field description.
    var json: JSONValue {
        let type: String
        var extra: [(String, JSONValue)] = []
        switch self {
        case .objectID: type = "esriFieldTypeOID"
        case .apn: type = "esriFieldTypeString"; extra = [("length", .number(20))]
        case .useType: type = "esriFieldTypeString"; extra = [("length", .number(32))]
        case .owner: type = "esriFieldTypeString"; extra = [("length", .number(64))]
        case .areaSqFt: type = "esriFieldTypeDouble"
        case .yearBuilt: type = "esriFieldTypeSmallInteger"
        }
        let alias: String
        switch self {
        case .objectID: alias = "OBJECTID"
        case .apn: alias = "Assessor Parcel Number"
        case .useType: alias = "Use Type"
        case .owner: alias = "Owner"
        case .areaSqFt: alias = "Area (sq ft)"
        case .yearBuilt: alias = "Year Built"
        }
        return .object(
            [("name", .string(rawValue)), ("type", .string(type)), ("alias", .string(alias))] + extra + [
                ("nullable", .bool(self != .objectID)),
                ("editable", .bool(self != .objectID)),
                ("domain", .null),
                ("defaultValue", .null),
            ])
    }
}

extension String {
    /// True when both strings are equal ignoring ASCII case.
    func caseInsensitiveCompare(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}

/// A value in a parcel or in a where clause.
enum SQLValue: Sendable, Equatable {
    case null
    case number(Double)
    case string(String)

    /// As JSON.
    var json: JSONValue {
        switch self {
        case .null: return .null
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? .int(Int64(n)) : .double(n)
        case .string(let s): return .string(s)
        }
    }
}

/// One parcel: an axis-aligned rectangle in WGS84 with its attributes.
struct Parcel: Sendable, Equatable {
    let objectID: Int
    let apn: String
    let useType: String
    let owner: String?
    let areaSqFt: Double
    let yearBuilt: Int?
    let xmin: Double
    let ymin: Double
    let xmax: Double
    let ymax: Double

    /// The value of a field.
    func value(_ field: ParcelField) -> SQLValue {
        switch field {
        case .objectID: return .number(Double(objectID))
        case .apn: return .string(apn)
        case .useType: return .string(useType)
        case .owner: return owner.map(SQLValue.string) ?? .null
        case .areaSqFt: return .number(areaSqFt)
        case .yearBuilt: return yearBuilt.map { .number(Double($0)) } ?? .null
        }
    }

    /// The polygon JSON: one clockwise ring.
    var geometryJSON: JSONValue {
        let ring: [(Double, Double)] = [(xmin, ymin), (xmin, ymax), (xmax, ymax), (xmax, ymin), (xmin, ymin)]
        return .object([("rings", .array([.array(ring.map { .array([.double($0.0), .double($0.1)]) })]))])
    }
}

extension Parcel {
    /// The GeoJSON polygon: one counter-clockwise ring (RFC 7946 §3.1.6).
    var geoJSONGeometry: JSONValue {
        let ring: [(Double, Double)] = [(xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax), (xmin, ymin)]
        return .object([
            ("type", .string("Polygon")),
            ("coordinates", .array([.array(ring.map { .array([.double($0.0), .double($0.1)]) })])),
        ])
    }
}

/// The built-in Parcels layer: 24 rectangles in a 6 × 4 grid south-west of
/// (-117.20, 34.05), separated by 0.0005°–0.001° wide "streets" so that no two touch.
enum ParcelsDataset {
    /// Attributes per parcel, in OBJECTID order: APN, UseType, Owner, YearBuilt.
    static let attributes: [(String, String, String?, Int?)] = [
        ("0292-101-01", "Residential", "Garcia Family Trust", 1954),
        ("0292-101-02", "Residential", "Nguyen, Linh", 1961),
        ("0292-101-03", "Commercial", "Orange Street Partners LLC", 1988),
        ("0292-101-04", "Residential", "O'Brien Holdings LLC", 1972),
        ("0292-101-05", "Government", "City of Redlands", 1935),
        ("0292-101-06", "Residential", "Smith, John", 1999),
        ("0292-102-01", "Residential", "Patel, Anika", 2004),
        ("0292-102-02", "Industrial", "Inland Empire Logistics Inc", 1979),
        ("0292-102-03", "Residential", nil, 1958),
        ("0292-102-04", "Commercial", "Citrus Plaza LLC", 2011),
        ("0292-102-05", "Residential", "Kim, Soo-jin", 1966),
        ("0292-102-06", "Residential", "Smith Family Trust", 1947),
        ("0292-103-01", "Government", "County of San Bernardino", nil),
        ("0292-103-02", "Residential", "Hernandez, Maria", 1983),
        ("0292-103-03", "Residential", "Johnson, Robert", 1975),
        ("0292-103-04", "Industrial", "Redlands Recycling Co", 1992),
        ("0292-103-05", "Commercial", "State Street Retail LLC", 2017),
        ("0292-103-06", "Residential", "Lee, David", 1959),
        ("0292-104-01", "Residential", "Williams, Sarah", 2020),
        ("0292-104-02", "Residential", "Brown, Michael", 1968),
        ("0292-104-03", "Government", "Redlands Unified School District", nil),
        ("0292-104-04", "Commercial", "Brookside Offices LP", 2008),
        ("0292-104-05", "Industrial", "San Bernardino Ave Storage LLC", 1985),
        ("0292-104-06", "Residential", "Davis, Emily", 1993),
    ]

    /// Grid origin and cell size in micro-degrees.
    static let originX = -117_207_000
    static let originY = 34_045_000
    static let cell = 2_500

    /// All parcels in OBJECTID order.
    static let parcels: [Parcel] = attributes.enumerated().map { index, attribute in
        let column = index % 6
        let row = index / 6
        let xmin = originX + column * cell
        let ymin = originY + row * cell
        let width = 1_500 + 100 * ((index * 7) % 6)
        let height = 1_200 + 100 * ((index * 5) % 4)
        // Metres per degree at 34.05° N: 92 230 east-west, 110 940 north-south.
        let squareMetres = Double(width) / 1e6 * 92_230 * Double(height) / 1e6 * 110_940
        return Parcel(
            objectID: index + 1, apn: attribute.0, useType: attribute.1, owner: attribute.2,
            areaSqFt: (squareMetres * 10.763_910_4).rounded(), yearBuilt: attribute.3,
            xmin: Double(xmin) / 1e6, ymin: Double(ymin) / 1e6,
            xmax: Double(xmin + width) / 1e6, ymax: Double(ymin + height) / 1e6)
    }

    /// The extent of all parcels.
    static var extentJSON: JSONValue {
        .object([
            ("xmin", .double(parcels.map(\.xmin).min()!)), ("ymin", .double(parcels.map(\.ymin).min()!)),
            ("xmax", .double(parcels.map(\.xmax).max()!)), ("ymax", .double(parcels.map(\.ymax).max()!)),
            ("spatialReference", .object([("wkid", .number(4326))])),
        ])
    }
}
