import Foundation
import Testing

@testable import PortalAuth

#if canImport(Glibc)
import Glibc
#endif

@Suite struct StrictJSONTests {
    static func problem(_ text: String) -> StrictJSON.Problem? { StrictJSON.firstProblem(in: Array(text.utf8)) }

    @Test func validJSONPasses() {
        for text in [
            "{}", "[]", " {\"a\": [1, -2.5e+3, 0, true, false, null, \"x\\u00e9\\n\"], \"b\": {}}\n", "\"s\"", "0",
            "\u{FEFF}{\"a\": 1}", "[[[]]]", "{\"a\": {\"a\": 1}}",
        ] {
            #expect(Self.problem(text) == nil, "\(text)")
        }
    }

    @Test func lenientExtensionsAreRefusedWithTheirPlace() {
        let cases: [(String, String, Int, Int)] = [
            ("{\"a\": 1,}", "trailing comma before }", 1, 9),
            ("[1,\n 2,\n]", "trailing comma before ]", 3, 1),
            ("{\n// c\n\"a\": 1}", "comment", 2, 1),
            ("{\"a\": 1 /* c */}", "comment", 1, 9),
            ("{\"a\": 1, \"a\": 2}", "appears twice", 1, 10),
            ("{'a': 1}", "expected a key in double quotes", 1, 2),
            ("[NaN]", "not a JSON value", 1, 2),
            ("[01]", "leading zero", 1, 2),
            ("{\"a\" 1}", "expected : after the key", 1, 6),
            ("{\"a\": 1 \"b\": 2}", "missing comma", 1, 9),
            ("{\"a\": 1}}", "more text after the JSON value", 1, 9),
            ("", "no JSON value", 1, 1),
            ("{\"a\": \"x", "never closed", 1, 7),
            ("[\"a\\x\"]", "unknown escape", 1, 4),
            ("[1, }", "trailing comma before }", 1, 5),
            ("{\"a\": }", "a value is missing after the colon", 1, 7),
            ("[}", "does not match", 1, 2),
        ]
        for (text, message, line, column) in cases {
            let found = Self.problem(text)
            #expect(found?.message.contains(message) == true, "\(text): \(String(describing: found))")
            #expect(found?.line == line && found?.column == column, "\(text): \(String(describing: found))")
        }
        #expect(Self.problem("{\"k\": 1, \"k\": 2}")?.duplicateKey == "k")
    }

    @Test func deepNestingAndArbitraryBytesEndInAnAnswer() {
        #expect(Self.problem(String(repeating: "[", count: 100_000))?.message.contains("nesting deeper") == true)
        var generator = SplitMix64(seed: 0x5EED_2026)
        let alphabet = Array("{}[],:\"\\ 0123456789-+.eEtruefalsn/*'\n\t".utf8) + [0, 0xFF, 0xC3]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let strict = StrictJSON.firstProblem(in: bytes)
            // What the strict pass accepts, the decoder accepts too.
            if strict == nil {
                #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) != nil, "\(bytes)")
            }
        }
    }

    @Test func aRefusedConnectionAnUnreachableHostAndNoRouteAreToldApart() {
        let place = "host:443"
        #expect(
            CurlErrors.connectFailure(osErrno: Int(ECONNREFUSED), text: "", place: place).0.contains(
                "(connection refused)"))
        #expect(
            CurlErrors.connectFailure(osErrno: Int(EHOSTUNREACH), text: "", place: place).0.contains(
                "(host unreachable)"))
        #expect(
            CurlErrors.connectFailure(osErrno: Int(ENETUNREACH), text: "", place: place).0.contains(
                "(network unreachable)"))
        #expect(CurlErrors.connectFailure(osErrno: Int(ETIMEDOUT), text: "", place: place).0.contains("timed out"))
        // Without an errno, libcurl's words.
        #expect(
            CurlErrors.connectFailure(osErrno: 0, text: "Failed to connect: No route to host", place: place).0.contains(
                "(host unreachable)"))
        #expect(CurlErrors.connectFailure(osErrno: Int(ECONNREFUSED), text: "", place: place).1 == .checkURL)
        #expect(CurlErrors.connectFailure(osErrno: Int(ENETUNREACH), text: "", place: place).1 == .checkNetwork)
    }

    @Test func aCABundleThatIsNotPEMIsNamed() {
        #expect(CABundleCheck.problem(Array("-----BEGIN CERTIFICATE-----\nMII\n".utf8)) == nil)
        #expect(CABundleCheck.problem([0x30, 0x82, 0x01])?.contains("DER") == true)
        #expect(CABundleCheck.problem([])?.contains("empty") == true)
        #expect(CABundleCheck.problem(Array("-----BEGIN PRIVATE KEY-----".utf8))?.contains("a key") == true)
    }
}

/// A seeded generator: the random inputs are the same in every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
