import Foundation
import PortalAuth
import PortalEmulator
import Testing

/// The DocC article's getting-started program, compiled (GettingStartedExample.swift) and run.
@Suite struct GettingStartedTests {
    @Test("the article prints the program this target compiles, character for character")
    func theArticleShowsTheCompiledProgram() throws {
        try expectDocumentPrints(
            "GettingStartedExample.swift", document: "Sources/PortalAuth/PortalAuth.docc/GettingStarted.md")
    }

    @Test("the program signs in through the portal and counts the layer's government parcels")
    func theProgramCountsTheParcels() async throws {
        try await Fixture.with { f in
            let count = try await countGovernmentParcels(
                layer: f.layer, username: "alice", password: "alice-pass-123",
                caBundlePath: f.emulator.caCertificatePath)
            let all = try await f.manager.send(
                ArcGISRequest(url: f.query, parameters: [("where", "UseType = 'Government'"), ("outFields", "*")]))
            let features = try #require(all.json?["features"]?.arrayValue)
            #expect(count > 0)
            #expect(count == features.count)
        }
    }
}
