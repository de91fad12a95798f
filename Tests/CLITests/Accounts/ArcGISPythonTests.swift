import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Runs `Tests/Clients/arcgis_client.py` (the ArcGIS API for Python from PyPI) against an
/// emulator and returns its report.
func arcGISPython(
    _ mode: String, _ emulator: PortalEmulator, secrets: [String: String]
) async throws -> [String: Any] {
    let environment = [
        "ARCGIS_PORTAL_URL": emulator.portalURL, "ARCGIS_CA": emulator.caCertificatePath,
        "ARCGIS_LAYER_URL": emulator.serverURL + "/rest/services/Parcels/FeatureServer/0",
    ]
    let result = try await RealClients.runScript(
        "arcgis_client.py", [mode], environment: environment.merging(secrets) { $1 })
    return try RealClients.report(result)
}

/// The Parcels layer's commercial parcels, in OBJECTID order: what a query for them must read.
let commercialParcels: [(id: Int, apn: String, owner: String, yearBuilt: Int)] = [
    (3, "0292-101-03", "Orange Street Partners LLC", 1988), (10, "0292-102-04", "Citrus Plaza LLC", 2011),
    (17, "0292-103-05", "State Street Retail LLC", 2017), (22, "0292-104-04", "Brookside Offices LP", 2008),
]

/// Checks the layer steps of an arcgis_client.py report: features with their attributes, the
/// count, the object IDs and the extent, all read through the federated server.
func expectParcelQueries(_ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
    let features = report["features"] as? [[String: Any]] ?? []
    #expect(
        features.map { $0["OBJECTID"] as? Int ?? -1 } == commercialParcels.map(\.id),
        "features: \(report["features"] ?? "none")", sourceLocation: sourceLocation)
    for (feature, parcel) in zip(features, commercialParcels) {
        #expect(feature["APN"] as? String == parcel.apn, sourceLocation: sourceLocation)
        #expect(feature["Owner"] as? String == parcel.owner, sourceLocation: sourceLocation)
        #expect(feature["UseType"] as? String == "Commercial", sourceLocation: sourceLocation)
        #expect(feature["YearBuilt"] as? Int == parcel.yearBuilt, sourceLocation: sourceLocation)
    }
    #expect(report["count"] as? Int == 14, "count: \(report["count"] ?? "none")", sourceLocation: sourceLocation)
    #expect(report["ids"] as? [Int] == [5, 13, 21], "ids: \(report["ids"] ?? "none")", sourceLocation: sourceLocation)
    // The four commercial rectangles span these corners (ParcelsDataset's grid).
    let extent = report["extent"] as? [String: Any] ?? [:]
    let corners = ["xmin": -117.202, "ymin": 34.045, "xmax": -117.1951, "ymax": 34.0538]
    for (key, value) in corners {
        let read = extent[key] as? Double
        #expect(
            read.map { abs($0 - value) < 1e-6 } == true, "extent \(key): \(report["extent"] ?? "none")",
            sourceLocation: sourceLocation)
    }
}

/// The ArcGIS API for Python (`arcgis` from PyPI, in the virtual environment of
/// scripts/support/setup-python.sh) against portal-emulator, as users' scripts run it in CI.
@Suite struct ArcGISPythonTests {
    /// `GIS(url, username, password)`: the API's own sign-in with the built-in `pythonapi` app
    /// (authorize, the sign-in page's oAuthInfo, `POST /sharing/oauth2/signin`, the
    /// out-of-band code), then users, content and layer queries through the federated server.
    @Test func usernameAndPasswordSignInReadsTheUserContentAndFeatures() async throws {
        try await withEmulator { emulator in
            let report = try await arcGISPython(
                "password", emulator, secrets: ["ARCGIS_USERNAME": "alice", "ARCGIS_PASSWORD": alicePassword])
            #expect(report["signIn"] as? String == "ok", "\(report)")
            let me = report["me"] as? [String: Any]
            #expect(me?["username"] as? String == "alice", "me: \(report["me"] ?? "none")")
            #expect(me?["fullName"] as? String == "Alice Anderson")
            let helpers = report["helperServices"] as? [String] ?? []
            #expect(helpers.contains("geocode"), "helperServices: \(report["helperServices"] ?? "none")")
            let user = report["user"] as? [String: Any]
            #expect(user?["username"] as? String == "alice", "user: \(report["user"] ?? "none")")
            let users = report["usersSearch"] as? [String] ?? []
            #expect(users.contains("alice") && users.contains("bob"), "usersSearch: \(report["usersSearch"] ?? "none")")
            let items = report["contentSearch"] as? [[String: Any]] ?? []
            #expect(
                items.contains { ($0["url"] as? String)?.contains("/rest/services/Parcels/FeatureServer") == true },
                "contentSearch: \(report["contentSearch"] ?? "none")")
            expectParcelQueries(report)
        }
    }

    /// `GIS(url, token=...)` with the token `portal-auth token` prints after a default
    /// `portal-auth login`: the API sends it as it is (no Referer of ours), and it must be
    /// alice's, not an anonymous session, with the secured layer readable.
    @Test func aTokenPrintedByPortalAuthWorksInGIS() async throws {
        try await withPrivateKeyring { keyring in
            try await withEmulator { emulator in
                let signIn = try await login(emulator, environment: keyring.environment)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                let token = try await CLI.portalAuth(
                    ["token", emulator.portalURL], emulator: emulator, environment: keyring.environment)
                try #require(token.status == 0, "\(token.stderr)")
                let report = try await arcGISPython("token", emulator, secrets: ["ARCGIS_TOKEN": token.trimmedStdout])
                #expect(report["signIn"] as? String == "ok", "\(report)")
                let me = report["me"] as? [String: Any]
                #expect(me?["username"] as? String == "alice", "me: \(report["me"] ?? "none (anonymous)")")
                expectParcelQueries(report)
            }
        }
    }
}
