import Foundation
import Testing

@testable import PortalAuth

/// A URL is read in time and memory linear in its length, up to 16 KiB, and refused beyond.
@Suite struct LongURLTests {
    /// `https://h/portal/` and `unit` repeated to exactly `length` bytes (or one unit short).
    static func url(_ length: Int, unit: String = "a/") -> String {
        let start = "https://h/portal/"
        return start + String(repeating: unit, count: (length - start.utf8.count) / unit.utf8.count)
    }

    @Test func aURLOverSixteenKiBIsRefusedAndOneAtTheLimitIsRead() throws {
        let limit = StrictURL.maximumLength
        #expect(limit == 16 * 1024)
        let atLimit = Self.url(limit) + String(repeating: "b", count: limit - Self.url(limit).utf8.count)
        #expect(atLimit.utf8.count == limit)
        #expect(try StrictURL.parse(atLimit).host == "h")
        for text in [atLimit + "c", Self.url(64 * 1024), Self.url(1 << 20, unit: "../")] {
            let error = #expect(throws: PortalAuthError.self) { try StrictURL.parse(text) }
            #expect(error?.code == .invalidURL)
            #expect(error?.remedy == .checkURL)
            #expect(error?.message.contains("\(text.utf8.count) bytes") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("16 KiB") == true)
            #expect((error?.message.utf8.count ?? 0) < 200)
            #expect(throws: PortalAuthError.self) { try ServerContext(text) }
        }
    }

    /// A URL whose query grows over the limit once percent-encoded is refused too: whatever is
    /// accepted is read again as it is normalised (found by the `URLContext` fuzz target).
    @Test func aURLOverTheLimitOnceItsQueryIsEncodedIsRefused() throws {
        let start = "https://h/portal?f="
        let text = start + String(repeating: "\"", count: StrictURL.maximumLength - start.utf8.count)
        #expect(text.utf8.count == StrictURL.maximumLength)
        let error = #expect(throws: PortalAuthError.self) { try StrictURL.parse(text) }
        #expect(error?.message.contains("percent-encoded") == true, "\(error?.message ?? "")")
        let fits = start + String(repeating: "\"", count: (StrictURL.maximumLength - start.utf8.count) / 3)
        let read = try StrictURL.parse(fits)
        #expect(try StrictURL.parse(read.string) == read)
    }

    /// The store looks a URL up in its candidate contexts: few, however many segments it has, so
    /// the work is linear in its length (the candidates' URLs together stay within a fixed
    /// multiple of it), not quadratic (16 KiB of `a/` once made 8,000 candidates of 8 KiB each).
    @Test(arguments: ["a/", "ab/", "./", "a//", "%20/", "/", "../", "a/../"])
    func aLongURLHasFewCandidateContexts(unit: String) throws {
        let text = Self.url(StrictURL.maximumLength, unit: unit)
        let candidates = try ServerContext.candidates(for: URL(string: text)!)
        #expect(candidates.count <= ServerContext.maximumCandidateDepth + 2)
        #expect(candidates.first == (try ServerContext(text)))
        #expect(candidates.last?.path == "")
        let bytes = candidates.map(\.url.utf8.count).reduce(0, +)
        #expect(bytes <= 2 * text.utf8.count + (ServerContext.maximumCandidateDepth + 2) * 64)
    }

    @Test func candidatesOfOrdinaryURLsAreEveryPrefix() throws {
        let url = URL(string: "https://h/a/b//c/d/sharing/rest/x")!
        #expect(
            try ServerContext.candidates(for: url).map(\.url) == [
                "https://h/a/b//c/d", "https://h/a/b//c",
                "https://h/a/b", "https://h/a", "https://h",
            ])
        #expect(try ServerContext.candidates(for: URL(string: "https://h/sharing/rest")!).map(\.url) == ["https://h"])
        let deep = "https://h/" + (1...40).map { "s\($0)" }.joined(separator: "/")
        let candidates = try ServerContext.candidates(for: URL(string: deep)!).map(\.url)
        let depth = ServerContext.maximumCandidateDepth
        #expect(candidates.first == deep)
        #expect(candidates.dropFirst().first == "https://h/" + (1...depth).map { "s\($0)" }.joined(separator: "/"))
        #expect(candidates.count == depth + 2)
    }

    /// A query for a long URL is not indexed: one such lookup cannot make the keyring's index
    /// too large to read for every other.
    @Test func theKeyringIndexKeepsNoEntryForALongURL() {
        var index = KeyringItemIndex()
        let short = CredentialQuery(store: "arcgis", server: "https://h/portal")
        let long = CredentialQuery(store: "arcgis", server: Self.url(StrictURL.maximumLength))
        index.set(.has(true), for: short)
        index.set(.has(true), for: long)
        index.set(.item(path: "/org/freedesktop/secrets/collection/login/1"), for: long)
        #expect(index.has(short) == true)
        #expect(index.has(long) == nil && index.itemPath(long) == nil)
        #expect(index.text.utf8.count < 200)
        let typical = CredentialQuery(
            store: "arcgis", server: "https://gis-portal.department.example.org:7443/portal", kind: "token",
            username: "first.last@department.example.org")
        index.set(.has(true), for: typical)
        #expect(index.has(typical) == true)
    }

    /// The one-pass removal of dot segments is RFC 3986's loop, on every path of a few segments.
    @Test func dotSegmentsAreRemovedAsTheRFCDoes() {
        let pieces = ["a", ".", "..", "", "b.", ".c", "...", "%2e"]
        var paths: [String] = [""]
        for _ in 0..<4 {
            paths = paths.flatMap { path in pieces.map { path + "/" + $0 } }
            for path in paths {
                #expect(
                    StrictURL.removingDotSegments(path) == StrictURL.removingDotSegmentsStepwise(path), "\(path)")
            }
        }
    }
}
