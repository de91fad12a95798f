import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("Feature queries and listings as GDAL and the ArcGIS API for Python read them")
struct FeatureClientTests {
    @Test("f=geojson: a FeatureCollection of polygons with properties, paged with exceededTransferLimit")
    func geoJSON() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.maxRecordCount = 10
        try await withEmulator(configuration) { emulator in
            let token = try await emulator.portalToken()
            let page = try await Curl.get(
                emulator.serverQueryURL + "?where=1%3D1&outFields=APN,UseType&f=geojson",
                ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(page.contentType.hasPrefix("application/geo+json"))
            let collection = try page.json()
            #expect(collection["type"] as? String == "FeatureCollection")
            #expect((collection["properties"] as? [String: Any])?["exceededTransferLimit"] as? Bool == true)
            let features = try #require(collection["features"] as? [[String: Any]])
            #expect(features.count == 10)
            let first = features[0]
            #expect(first["id"] as? Int == 1)
            #expect((first["properties"] as? [String: Any])?["APN"] as? String == "0292-101-01")
            let geometry = try #require(first["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "Polygon")
            let ring = try #require((geometry["coordinates"] as? [[[Double]]])?.first)
            #expect(ring.count == 5 && ring.first == ring.last)

            let last = try await Curl.get(
                emulator.serverQueryURL + "?where=1%3D1&resultOffset=20&resultRecordCount=10&f=geojson",
                ca: emulator.caCertificatePath, headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect((try last.json()["features"] as? [Any])?.count == 4)
            #expect(try last.json()["properties"] == nil)
        }
    }

    @Test("maxRecordCount caps Esri JSON pages; resultOffset pages through all 24 as GDAL does")
    func paging() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.maxRecordCount = 10
        try await withEmulator(configuration) { emulator in
            let token = try await emulator.portalToken()
            var ids: [Int] = []
            var offset = 0
            while true {
                let answer = try await emulator.query(
                    emulator.serverQueryURL, token: token,
                    [("where", "1=1"), ("resultOffset", String(offset)), ("resultRecordCount", "50")]
                ).json()
                let page = try objectIDs(answer)
                ids += page
                offset += page.count
                guard answer["exceededTransferLimit"] as? Bool == true else { break }
                #expect(page.count == 10)
            }
            #expect(ids == Array(1...24))
            let layer = try await emulator.query(
                emulator.serverURL + "/rest/services/Parcels/FeatureServer/0", token: token, []
            ).json()
            #expect(layer["maxRecordCount"] as? Int == 10)
            #expect(layer["geometryType"] as? String == "esriGeometryPolygon")
            #expect((layer["fields"] as? [Any])?.count == 6)
            #expect(layer["extent"] is [String: Any])
            let advanced = try #require(layer["advancedQueryCapabilities"] as? [String: Any])
            #expect(advanced["supportsPagination"] as? Bool == true)
            #expect(advanced["supportsReturningQueryExtent"] as? Bool == true)
            #expect((layer["supportedQueryFormats"] as? String)?.contains("geoJSON") == true)
        }
    }

    @Test("returnExtentOnly, alone and with returnCountOnly; NaN corners when nothing matches")
    func extentOnly() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let extent = try await emulator.query(
                emulator.serverQueryURL, token: token, [("where", "OBJECTID = 1"), ("returnExtentOnly", "true")]
            ).json()
            let box = try #require(extent["extent"] as? [String: Any])
            #expect(box["xmin"] as? Double == -117.207)
            #expect(box["ymin"] as? Double == 34.045)
            #expect(extent["count"] == nil)
            let both = try await emulator.query(
                emulator.serverQueryURL, token: token,
                [("where", "UseType = 'Government'"), ("returnExtentOnly", "true"), ("returnCountOnly", "true")]
            ).json()
            #expect(both["count"] as? Int == 3)
            #expect(both["extent"] is [String: Any])
            let none = try await emulator.query(
                emulator.serverQueryURL, token: token, [("where", "1=0"), ("returnExtentOnly", "true")]
            ).json()
            #expect((none["extent"] as? [String: Any])?["xmin"] as? String == "NaN")
        }
    }

    @Test("search, content/items, portals/self/users and community/users page the ArcGIS way, members only")
    func listings() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let headers = ["X-Esri-Authorization": "Bearer \(token)"]
            let rest = emulator.portalURL + "/sharing/rest"
            let search = try await Curl.get(
                rest + "/search?q=Parcels%20AND%20owner%3Aalice&f=json", ca: emulator.caCertificatePath,
                headers: headers
            ).json()
            #expect(search["total"] as? Int == 1)
            #expect(search["nextStart"] as? Int == -1)
            let item = try #require((search["results"] as? [[String: Any]])?.first)
            #expect(item["url"] as? String == emulator.serverURL + "/rest/services/Parcels/FeatureServer")
            #expect(item["type"] as? String == "Feature Service")
            let id = try #require(item["id"] as? String)
            let byID = try await Curl.get(
                rest + "/content/items/\(id)?f=json", ca: emulator.caCertificatePath, headers: headers
            ).json()
            #expect(byID["title"] as? String == "Parcels")
            let nothing = try await Curl.get(
                rest + "/search?q=owner%3Abob&f=json", ca: emulator.caCertificatePath, headers: headers
            ).json()
            #expect(nothing["total"] as? Int == 0)

            let members = try await Curl.get(
                rest + "/portals/self/users?start=1&num=1&f=json", ca: emulator.caCertificatePath, headers: headers
            ).json()
            #expect(members["total"] as? Int == 2)
            #expect(members["nextStart"] as? Int == 2)
            #expect((members["users"] as? [[String: Any]])?.first?["username"] as? String == "alice")
            let bob = try await Curl.get(
                rest + "/community/users?q=bob&f=json", ca: emulator.caCertificatePath, headers: headers
            ).json()
            #expect((bob["results"] as? [[String: Any]])?.map { $0["username"] as? String } == ["bob"])

            let anonymous = try await Curl.get(rest + "/search?q=Parcels&f=json", ca: emulator.caCertificatePath)
            #expect(anonymous.errorCode == 499)

            let portal = try await Curl.get(
                rest + "/portals/self?f=json", ca: emulator.caCertificatePath, headers: headers
            ).json()
            for key in [
                "id", "urlKey", "customBaseUrl", "isPortal", "portalHostname", "portalMode", "supportsOAuth",
                "helperServices", "user", "currentVersion", "allSSL", "portalDeploymentType", "culture", "region",
                "recycleBinSupported", "defaultExtent",
            ] {
                #expect(portal[key] != nil, "portals/self lacks \(key)")
            }
        }
    }
}
