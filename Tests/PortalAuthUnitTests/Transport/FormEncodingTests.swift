import PortalAuth
import Testing

/// `FormEncoding`, read in bytes as servers read a form: what serve's proxy reads of a client's
/// query and form before it drops every credential parameter.
@Suite struct FormEncodingTests {
    static func pairs(_ text: String) -> [String] {
        FormEncoding.decode(text).map { "\($0.0)=\($0.1)" }
    }

    @Test func itemsAreSplitInBytesAtEveryAmpersandAndTheFirstEquals() {
        #expect(Self.pairs("a=1&&b=2&") == ["a=1", "b=2"])
        #expect(Self.pairs("a&=x&b=c=d") == ["a=", "=x", "b=c=d"])
        // (A combining mark after `&` or `=` does not join it to a character, as a server reads it.)
        #expect(Self.pairs("a=1&\u{301}token=x") == ["a=1", "\u{301}token=x"])
        #expect(Self.pairs("a=\u{600}&token=x") == ["a=\u{600}", "token=x"])
        #expect(Self.pairs("f=\u{301}json") == ["f=\u{301}json"])
    }

    @Test func escapesArePercentAndPlus() {
        #expect(Self.pairs("a=%+F%2b%4A%zz%4") == ["a=% F+J%zz%4"])
        #expect(Self.pairs("w%68ere=1%3D1+and+x") == ["where=1=1 and x"])
        // (Bytes that are not UTF-8 are read as U+FFFD, as before.)
        #expect(Self.pairs("q=caf%E9") == ["q=caf\u{FFFD}"])
    }

    @Test func escapeKeepsOnlyTheUnreservedBytes() {
        #expect(FormEncoding.escape("aZ09-._~") == "aZ09-._~")
        #expect(FormEncoding.escape("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9")
        #expect(FormEncoding.encode([("where", "1=1"), ("f", "json")]) == "where=1%3D1&f=json")
        for text in ["", "x", "a b&c=d/é+%", "\u{301}token", String(repeating: "é&", count: 40)] {
            #expect(FormEncoding.decode(FormEncoding.encode([(text, text)])).map { [$0.0, $0.1] } == [[text, text]])
        }
    }
}
