import Testing

@testable import PortalAuth

/// The header fields of libcurl's header block: read byte by byte (an ASCII block) as they were
/// read by characters before.
@Suite struct CurlHeaderFieldsTests {
    @Test func theFieldsOfAnAnswer() {
        let block =
            "HTTP/1.1 302 Found\r\nLocation: https://b.example/x\r\nContent-Type:\ttext/plain; charset=utf-8 \r\n"
            + "X-Empty:\r\nNoColon\r\n\r\nHTTP/1.1 200 OK\r\nSet-Cookie: a=b:c\r\n\r\n"
        let fields = CurlOutcome.fields(of: block)
        #expect(fields.map(\.name) == ["Location", "Content-Type", "X-Empty", "Set-Cookie"])
        #expect(fields.map(\.value) == ["https://b.example/x", "text/plain; charset=utf-8", "", "a=b:c"])
    }

    @Test(arguments: [
        "", "\r\n", "A: b", "A: b\r\n", "A:b\r\nB :  c  \r\n", "A: b\rc\r\n", "A: b\nC: d\r\n", "\r\n\r\nA: b\r\r\n",
        ":x\r\n", "A: \u{0B}\u{0C}b\u{0B}\r\n", "HTTP/2 200\r\nhttp/1.1: x\r\n", "A: b\r", "A:\r\n\r\nB:\r\n",
        "A: caf\u{E9}\r\n", "A: \u{A0}b\u{A0}\r\n", "B\u{301}: c\r\n", "A:\u{301} b\r\n",
    ])
    func theSameAsTheCharacterReading(_ block: String) {
        let fields = CurlOutcome.fields(of: block)
        let reference = CurlOutcome.characterFields(of: block)
        #expect(fields.map(\.name) == reference.map(\.name))
        #expect(fields.map(\.value) == reference.map(\.value))
    }
}
