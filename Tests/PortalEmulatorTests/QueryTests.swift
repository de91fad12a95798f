import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("FeatureServer query")
struct QueryTests {
    /// Runs a query with a server token and returns the answer JSON.
    func query(_ emulator: PortalEmulator, _ parameters: [(String, String)]) async throws -> [String: Any] {
        let token = emulator.issueToken(username: "alice", lifetimeSeconds: 600, kind: .server)
        return try await emulator.query(emulator.serverQueryURL, token: token, parameters).json()
    }

    @Test("where over HTTP, with the ArcGIS response shape")
    func whereOverHTTP() async throws {
        try await withEmulator { emulator in
            let answer = try await query(
                emulator,
                [
                    ("where", "UseType = 'Government'"), ("outFields", "*"), ("returnGeometry", "true"),
                ])
            #expect(answer["objectIdFieldName"] as? String == "OBJECTID")
            #expect(answer["geometryType"] as? String == "esriGeometryPolygon")
            #expect((answer["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
            let fields = try #require(answer["fields"] as? [[String: Any]])
            #expect(
                fields.map { $0["name"] as? String } == [
                    "OBJECTID", "APN", "UseType", "Owner", "AreaSqFt", "YearBuilt",
                ])
            #expect(try objectIDs(answer) == [5, 13, 21])
            let first = try #require((answer["features"] as? [[String: Any]])?.first)
            let attributes = try #require(first["attributes"] as? [String: Any])
            #expect(attributes["UseType"] as? String == "Government")
            #expect(attributes["Owner"] as? String == "City of Redlands")
            #expect(attributes["YearBuilt"] as? Int == 1935)
            let rings = try #require((first["geometry"] as? [String: Any])?["rings"] as? [[[Double]]])
            #expect(rings.count == 1)
            #expect(rings[0].count == 5)
            #expect(rings[0].first == rings[0].last)
        }
    }

    @Test("a where syntax error is the ArcGIS 400 error")
    func whereSyntaxError() async throws {
        try await withEmulator { emulator in
            for clause in ["UseType = ", "Nope = 1", "UseType = 'x' AND"] {
                let answer = try await query(emulator, [("where", clause)])
                let error = try #require(answer["error"] as? [String: Any], "\(clause)")
                #expect(error["code"] as? Int == 400)
                #expect(error["message"] as? String == "Invalid or missing input parameters.")
                #expect((error["details"] as? [String])?.isEmpty == false)
            }
            #expect(emulator.counters().queriesByTokenKind["server"] == nil)
        }
    }

    @Test("outFields, returnGeometry=false, returnCountOnly, resultRecordCount, orderByFields")
    func outputOptions() async throws {
        try await withEmulator { emulator in
            let picked = try await query(
                emulator,
                [
                    ("where", "YearBuilt IS NULL"), ("outFields", "APN,YearBuilt"), ("returnGeometry", "false"),
                ])
            let features = try #require(picked["features"] as? [[String: Any]])
            #expect(features.count == 2)
            for feature in features {
                #expect(feature["geometry"] == nil)
                let attributes = try #require(feature["attributes"] as? [String: Any])
                #expect(Set(attributes.keys) == ["APN", "YearBuilt"])
                #expect(attributes["YearBuilt"] is NSNull)
            }
            let count = try await query(emulator, [("where", "UseType = 'Residential'"), ("returnCountOnly", "true")])
            #expect(count["count"] as? Int == 14)
            #expect(count["features"] == nil)

            let page = try await query(
                emulator, [("where", "1=1"), ("resultRecordCount", "5"), ("outFields", "OBJECTID")])
            #expect(try objectIDs(page) == [1, 2, 3, 4, 5])
            #expect(page["exceededTransferLimit"] as? Bool == true)
            let offset = try await query(
                emulator, [("where", "1=1"), ("resultRecordCount", "5"), ("resultOffset", "20")])
            #expect(try objectIDs(offset) == [21, 22, 23, 24])
            let ordered = try await query(
                emulator,
                [
                    ("where", "UseType = 'Commercial'"), ("orderByFields", "YearBuilt DESC"),
                ])
            #expect(try objectIDs(ordered) == [17, 10, 22, 3])
            let badField = try await query(emulator, [("where", "1=1"), ("outFields", "Nope")])
            #expect((badField["error"] as? [String: Any])?["code"] as? Int == 400)
            let badCount = try await query(emulator, [("where", "1=1"), ("resultRecordCount", "many")])
            #expect((badCount["error"] as? [String: Any])?["code"] as? Int == 400)
            let nothing = try await query(emulator, [])
            #expect((nothing["error"] as? [String: Any])?["code"] as? Int == 400)
        }
    }

    @Test(
        "envelope intersection is exact, in JSON and comma form",
        arguments: [
            (
                #"{"xmin":-117.2071,"ymin":34.0449,"xmax":-117.2060,"ymax":34.0455,"spatialReference":{"wkid":4326}}"#,
                [1]
            ),
            ("-117.2071,34.0449,-117.2060,34.0455", [1]),
            // Touching parcel 1's east edge counts as intersecting.
            ("-117.2055,34.0451,-117.2050,34.0452", [1]),
            // Inside the street between parcels 1 and 2.
            ("-117.2054,34.0451,-117.2046,34.0460", []),
            // Corners given the wrong way round.
            ("-117.2060,34.0455,-117.2071,34.0449", [1]),
            // The first row of the grid.
            ("-117.2100,34.0449,-117.1900,34.0466", [1, 2, 3, 4, 5, 6]),
            ("-117.3,33.9,-117.1,34.2", Array(1...24)),
            ("-118,33,-117.9,33.1", []),
        ])
    func envelopes(geometry: String, expected: [Int]) async throws {
        try await withEmulator { emulator in
            let answer = try await query(
                emulator,
                [
                    ("geometry", geometry), ("geometryType", "esriGeometryEnvelope"),
                    ("spatialRel", "esriSpatialRelIntersects"), ("inSR", "4326"), ("returnGeometry", "false"),
                ])
            #expect(try objectIDs(answer) == expected)
        }
    }

    @Test("envelope combined with where, contains, within, point, and bad geometry")
    func spatialVariants() async throws {
        try await withEmulator { emulator in
            let both = try await query(
                emulator,
                [
                    ("where", "UseType = 'Government'"), ("geometry", "-117.3,34.04,-117.1,34.0510"),
                    ("geometryType", "esriGeometryEnvelope"), ("returnCountOnly", "true"),
                ])
            #expect(both["count"] as? Int == 2)
            let within = try await query(
                emulator,
                [
                    ("geometry", "-117.2071,34.0449,-117.2054,34.0463"), ("geometryType", "esriGeometryEnvelope"),
                    ("spatialRel", "esriSpatialRelWithin"),
                ])
            #expect(try objectIDs(within) == [1])
            let contains = try await query(
                emulator,
                [
                    ("geometry", "-117.2065,34.0452,-117.2060,34.0455"), ("geometryType", "esriGeometryEnvelope"),
                    ("spatialRel", "esriSpatialRelContains"),
                ])
            #expect(try objectIDs(contains) == [1])
            let point = try await query(
                emulator,
                [
                    ("geometry", #"{"x":-117.2060,"y":34.0455}"#), ("geometryType", "esriGeometryPoint"),
                ])
            #expect(try objectIDs(point) == [1])
            for bad in [
                [("geometry", "1,2,3"), ("geometryType", "esriGeometryEnvelope")],
                [("geometry", "-117.3,33.9,-117.1,34.2"), ("spatialRel", "esriSpatialRelTouches")],
                [("geometry", #"{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":3857}}"#)],
                [("geometry", "{not json")],
            ] {
                let answer = try await query(emulator, bad)
                #expect((answer["error"] as? [String: Any])?["code"] as? Int == 400, "\(bad)")
            }
        }
    }

    @Test("GET works too, and the layer description lists the fields")
    func getAndLayer() async throws {
        try await withEmulator { emulator in
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 600, kind: .server)
            let url = emulator.serverQueryURL + "?where=OBJECTID%20IN%20(2,4)&outFields=*&f=json&token=\(token)"
            let answer = try await Curl.get(url, ca: emulator.caCertificatePath).json()
            #expect(try objectIDs(answer) == [2, 4])
            let layer = try await Curl.get(
                emulator.serverURL + "/rest/services/Parcels/FeatureServer/0?f=json&token=\(token)",
                ca: emulator.caCertificatePath
            ).json()
            let fields = try #require(layer["fields"] as? [[String: Any]])
            #expect(fields.count == 6)
            #expect(layer["geometryType"] as? String == "esriGeometryPolygon")
        }
    }
}
