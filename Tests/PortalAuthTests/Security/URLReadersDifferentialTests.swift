import Foundation
import TestSupport
import Testing

@testable import PortalAuth

/// portal-auth's URL decision against the readers of the tools tokens are handed to: libcurl's
/// own URL parser (`curl_url()`), a WHATWG parser (ada-url, as browsers and Node read URLs) and
/// requests with urllib3 (`Tests/Clients/url_readers.py`). Over a corpus of hostile URLs
/// (`Tests/Fixtures/hostile-urls.txt`), generated combinations and the fuzz corpus, portal-auth
/// may hand out the portal's token only where every reader agrees with its scheme, goes to the
/// portal's host and port, and to a path inside the portal once dot segments are resolved.
@Suite struct URLReadersDifferentialTests {
    static let portal = try! ServerContext("https://127.0.0.1:8443/portal")

    @Test func aTokenGoesOnlyWhereEveryReaderAgrees() async throws {
        let urls = try Self.corpus() + Self.generated() + Self.fuzzCorpus()
        let readings = try await Self.readings(of: urls)
        #expect(readings.count == urls.count)
        var granted = 0
        for (url, reading) in zip(urls, readings) {
            guard Self.portalAuthGrants(url), let scheme = try? StrictURL.parse(url).scheme else { continue }
            granted += 1
            for reader in ["curl", "whatwg", "urllib3"] {
                let read = reading[reader] as? [String: Any] ?? [:]
                #expect(read["error"] == nil, "\(reader) refuses \(url.debugDescription), which portal-auth grants")
                #expect(read["scheme"] as? String == scheme, "\(reader): \(url.debugDescription) → \(read)")
                #expect(read["host"] as? String == "127.0.0.1", "\(reader): \(url.debugDescription) → \(read)")
                #expect(read["port"] as? Int == 8443, "\(reader): \(url.debugDescription) → \(read)")
                let path = StrictURL.removingDotSegments(read["path"] as? String ?? "")
                #expect(
                    path == "/portal" || path.hasPrefix("/portal/"),
                    "\(reader) sends \(url.debugDescription) to \(path), outside the portal")
            }
        }
        // Not vacuous: the ordinary URLs are granted, and the issue's attacks are not.
        #expect(granted >= 20)
        for attack in [
            "https://127.0.0.2:8443\\@127.0.0.1:8443/portal", "https://127.0.0.1:8443/portal/../echo",
            "https://127.0.0.1:8443/portal/sharing/rest/../../../server/rest/services/x",
            "https://127.0.0.1:8443/portal/%2e%2e/echo", "https://127.0.0.1:8443/portal/..;/echo",
        ] {
            #expect(!Self.portalAuthGrants(attack), "\(attack)")
        }
    }

    /// The decision `token URL` makes for the portal's credential: the URL's strict reading, then
    /// the context check on it.
    static func portalAuthGrants(_ url: String) -> Bool {
        guard let read = try? StrictURL.parse(url) else { return false }
        return portal.contains(read.url)
    }

    /// Each URL as the three readers see it (one run of the script for all).
    static func readings(of urls: [String]) async throws -> [[String: Any]] {
        let input = String(decoding: try JSONSerialization.data(withJSONObject: urls), as: UTF8.self)
        let result = try await Subprocess.run(
            try await RealClients.python(), [RealClients.scripts + "/url_readers.py"], stdin: input, timeout: 300)
        guard result.status == 0, let array = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any]
        else { throw SubprocessError("url_readers.py failed (exit \(result.status)): \(result.stderr.suffix(2000))") }
        return array.map { $0 as? [String: Any] ?? [:] }
    }

    /// `Tests/Fixtures/hostile-urls.txt`, decoded: `#` lines and empty lines skipped, `\xNN` is the
    /// byte NN (00 to 7F), `\\` one backslash.
    static func corpus() throws -> [String] {
        let text = try String(
            contentsOfFile: RealClients.repositoryRoot + "/Tests/Fixtures/hostile-urls.txt", encoding: .utf8)
        return try text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            var bytes: [UInt8] = []
            var rest = Array(line.utf8)[...]
            while let byte = rest.popFirst() {
                guard byte == UInt8(ascii: "\\") else {
                    bytes.append(byte)
                    continue
                }
                if rest.first == UInt8(ascii: "\\") {
                    bytes.append(rest.removeFirst())
                } else if rest.first == UInt8(ascii: "x"), rest.count >= 3,
                    let value = UInt8(String(decoding: rest.dropFirst().prefix(2), as: UTF8.self), radix: 16),
                    value < 0x80
                {
                    bytes.append(value)
                    rest = rest.dropFirst(3)
                } else {
                    throw SubprocessError("hostile-urls.txt: a backslash that is neither \\\\ nor \\xNN in \(line)")
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Combinations of schemes, authorities and paths that each look like the portal.
    static func generated() -> [String] {
        let schemes = ["https://", "HTTPS://", "https:/", "https:\\\\"]
        let authorities = [
            "127.0.0.1:8443", "127.0.0.1:08443", "x@127.0.0.1:8443", "127.0.0.1:8443@127.0.0.2",
            "127.0.0.2:8443\\@127.0.0.1:8443", "127.1:8443", "[::ffff:127.0.0.1]:8443", "127.0.0.1:8443#@127.0.0.2",
            "127.0.0.1:8443?@127.0.0.2",
        ]
        let paths = [
            "/portal", "/portal/sharing/rest", "/portal/../echo", "/echo/../portal/x", "/portal/./sharing",
            "/portal/%2e%2e/x", "/portal/..;/x", "/portal/x/..%2f..%2fecho", "/portal\\..\\echo", "/portal;/x",
            "/./portal", "//portal", "/portal/sharing/rest/..", "/portal/a/b/../../../echo",
        ]
        return schemes.flatMap { scheme in authorities.flatMap { authority in paths.map { scheme + authority + $0 } } }
    }

    /// The URLs the fuzzer kept (Fuzz/Corpus/URLContext), those that are text.
    static func fuzzCorpus() throws -> [String] {
        let folder = RealClients.repositoryRoot + "/Fuzz/Corpus/URLContext"
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().compactMap { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            return String(data: data, encoding: .utf8)
        }
    }
}
