import Testing

@testable import PortalAuth

/// The byte-level reading of protocol text that a request's hot path uses instead of building
/// strings: the same answers as the string operations it replaces, for protocol text.
@Suite struct ASCIITextTests {
    @Test(arguments: [
        ("Content-Length", "content-length", true), ("X-ESRI-Authorization", "x-esri-authorization", true),
        ("Host", "host", true), ("Host", "Hosts", false), ("Host", "Hos", false), ("", "", true),
        // Only ASCII letters fold: `@` is not `` ` `` and `[` is not `{`, though each pair differs by 0x20.
        ("a@b", "a`b", false), ("a[b", "a{b", false), ("é", "É", false),
    ])
    func namesCompareWithoutCase(left: String, right: String, equal: Bool) {
        #expect(ASCIIText.equalsIgnoringCase(left, right) == equal)
        #expect(ASCIIText.equalsIgnoringCase(right, left) == equal)
    }

    @Test func sameBytesIsNotCanonicalEquivalence() {
        #expect(ASCIIText.sameBytes("https://h.example/a", "https://h.example/a"))
        #expect(!ASCIIText.sameBytes("https://h.example/a", "https://h.example/b"))
        // "é" written as one scalar and as e + combining acute: equal as Swift strings, not as bytes.
        #expect("\u{E9}" == "e\u{301}")
        #expect(!ASCIIText.sameBytes("\u{E9}", "e\u{301}"))
    }

    @Test func containsFindsAPatternAnywhere() {
        #expect(ASCIIText.contains(Array("{\"error\":{}}".utf8), "\"error\""))
        #expect(ASCIIText.contains("/arcgis/rest/services".utf8, "/rest/"))
        #expect(ASCIIText.contains("//rest/".utf8, "/rest/"))
        #expect(!ASCIIText.contains("/arcgis/rest".utf8, "/rest/"))
        #expect(!ASCIIText.contains("".utf8, "/"))
        #expect(ASCIIText.contains("abc".utf8, ""))
        // A pattern cut by the prefix taken is not found.
        #expect(!ASCIIText.contains(Array("{  \"err".utf8).prefix(64), "\"error\""))
    }

    @Test func blanksAreTrimmedAndControlCharactersFound() {
        #expect(ASCIIText.trimmingBlanks(" \tclose \t"[...]) == "close")
        #expect(ASCIIText.trimmingBlanks("   "[...]).isEmpty)
        #expect(ASCIIText.containsControlCharacter("a\rb") && ASCIIText.containsControlCharacter("\u{7F}"))
        #expect(!ASCIIText.containsControlCharacter("text/plain; charset=utf-8"))
    }
}
