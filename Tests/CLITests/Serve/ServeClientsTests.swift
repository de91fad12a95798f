import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Real programs that live for hours read a secured layer through `portal-auth serve`, with no
/// token in their URLs: GDAL's `ogrinfo` (ESRIJSON driver) and QGIS headless (Debian's
/// python3-qgis and qgis-providers, the `arcgisfeatureserver` provider), checked by what they read.
@Suite struct ServeClientsTests {
    @Test func gdalReadsTheSecuredLayerThroughServe() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                ogrinfo -ro -al -so "ESRIJSON:$(portal-auth serve url --state-file serve.json "$LAYER/query?where=1%3D1&outFields=*&f=json")"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Feature Count: 24"), "\(result.stdout) \(result.stderr)")
            // GDAL sent no token: the server's came from serve.
            let queries = serve.logLines(containing: "FeatureServer/0/query")
            #expect(!queries.isEmpty && queries.allSatisfy { $0.contains("credential=x-esri-authorization:server ") })
        }
    }

    @Test func qgisLoadsTheSecuredLayerThroughServeAndReadsItsFeatures() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                mkdir -p -m 700 runtime
                LAYER_URL=$(portal-auth serve url --state-file serve.json "$LAYER") \
                  QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$PWD/runtime" HOME="$PWD" /usr/bin/python3 -c '
                import os
                from qgis.core import QgsApplication, QgsVectorLayer
                QgsApplication.setPrefixPath("/usr", True)
                app = QgsApplication([], False)
                app.initQgis()
                layer = QgsVectorLayer("crs=\x27EPSG:4326\x27 url=\x27" + os.environ["LAYER_URL"] + "\x27", "parcels",
                                       "arcgisfeatureserver")
                print("valid", layer.isValid())
                features = list(layer.getFeatures())
                print("features", len(features), sorted(set(f["UseType"] for f in features))[:1])
                app.exitQgis()
                ' 2>qgis.err
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("valid True\nfeatures 24 ["), "\(result.stdout) \(result.stderr)")
            let queries = serve.logLines(containing: "FeatureServer/0")
            #expect(!queries.isEmpty && queries.allSatisfy { $0.contains("credential=x-esri-authorization:server ") })
        }
    }
}
