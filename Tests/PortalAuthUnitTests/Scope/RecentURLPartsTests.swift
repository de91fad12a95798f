import Foundation
import Testing

@testable import PortalAuth

/// The kept readings of URLs' parts: a kept answer is the reading's own, for the same text only;
/// refusals are never kept; no more than the capacity is kept.
@Suite struct RecentURLPartsTests {
    let urls = [
        "https://host.example/portal/sharing/rest/portals/self",
        "https://HOST.example:443/portal/",
        "https://host.example/arcgis/rest/services/A/FeatureServer/0/query?where=1%3D1",
        "https://127.0.0.1:8443/server/rest/services/./B/../C/MapServer",
        "https://host.example/arcgis/tokens/",
    ]

    @Test func aKeptReadingIsWhatReadingAgainGives() throws {
        let recent = RecentURLParts(capacity: 3)
        var reads = 0
        func read(_ text: String) throws -> ServerContext.Parts {
            reads += 1
            return try ServerContext.readParts(text)
        }
        for round in 0..<3 {
            for url in urls {
                #expect(try recent.parts(of: url, reading: read) == ServerContext.readParts(url), "round \(round)")
            }
        }
        #expect(recent.count == 3)
        // Five texts round-robin through three places: never a stale hit, every one read again.
        #expect(reads == 15)
        // The same text twice in a row is read once.
        let before = reads
        _ = try recent.parts(of: urls[0], reading: read)
        _ = try recent.parts(of: urls[0], reading: read)
        #expect(reads == before + 1)
    }

    @Test func aRefusedURLIsNeverKeptAndStaysRefused() {
        let recent = RecentURLParts(capacity: 8)
        let refused = "https://host.example/arcgis/..;/portal"
        var reads = 0
        for _ in 0..<2 {
            #expect(throws: PortalAuthError.self) {
                try recent.parts(of: refused) { text in
                    reads += 1
                    return try ServerContext.readParts(text)
                }
            }
        }
        #expect(reads == 2 && recent.count == 0)
    }

    @Test func textsThatDifferOnlyInCaseAreReadEachTheirOwnWay() throws {
        let recent = RecentURLParts(capacity: 8)
        let lower = try recent.parts(of: "https://h.example/Portal", reading: ServerContext.readParts)
        let upper = try recent.parts(of: "https://h.example/portal", reading: ServerContext.readParts)
        #expect(lower.path == "/Portal" && upper.path == "/portal")
    }

    /// Canonically equivalent texts are different URLs: a kept reading of one is never the other's
    /// (the Kelvin sign K is refused where K is read).
    @Test func equivalentTextsAreNotTheSameURL() throws {
        let recent = RecentURLParts(capacity: 8)
        _ = try recent.parts(of: "https://h.example/pathK", reading: ServerContext.readParts)
        #expect(throws: PortalAuthError.self) {
            try recent.parts(of: "https://h.example/path\u{212A}", reading: ServerContext.readParts)
        }
    }
}
