import PortalAuth
import PortalAuthServe
import Testing

/// What `portal-auth serve` reads from local clients (`LoopbackHTTPRequest`) and where it may
/// listen (`LoopbackAddress`), without a socket.
@Suite struct LoopbackHTTPRequestTests {
    private func parse(_ text: String, _ limits: LoopbackHTTPRequest.Limits = .init()) throws -> LoopbackHTTPRequest? {
        try LoopbackHTTPRequest.parse(Array(text.utf8), limits: limits)
    }

    private func refusal(_ text: String, _ limits: LoopbackHTTPRequest.Limits = .init()) -> Int? {
        do {
            _ = try parse(text, limits)
            return nil
        } catch {
            return (error as? LoopbackHTTPRequest.Refusal)?.status
        }
    }

    @Test func aCompleteRequestIsReadWithItsBodyAndAnIncompleteOneWaits() throws {
        let request = try #require(
            try parse("POST /s/https/h/q?a=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc"))
        #expect(request.method == "POST")
        #expect(request.pathAndQuery.path == "/s/https/h/q" && request.pathAndQuery.query == "a=1")
        #expect(request.header("host") == "127.0.0.1")
        #expect(request.body == Array("abc".utf8))
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab") == nil)
        #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\n") == nil)
    }

    @Test func keepAliveIsHTTP11sDefaultAndHTTP10sOnRequest() throws {
        #expect(try parse("GET / HTTP/1.1\r\n\r\n")?.keepsAlive == true)
        #expect(try parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")?.keepsAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\n\r\n")?.keepsAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.keepsAlive == true)
        // `Connection` is a list of options, each compared without case, wherever it stands.
        #expect(try parse("GET / HTTP/1.1\r\nConnection: Upgrade, CLOSE\r\n\r\n")?.keepsAlive == false)
        #expect(try parse("GET / HTTP/1.1\r\nConnection: TE\r\nConnection:\tclose \r\n\r\n")?.keepsAlive == false)
        #expect(try parse("GET / HTTP/1.1\r\nconnection: keep-alive\r\n\r\n")?.keepsAlive == true)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: TE,keep-alive\r\n\r\n")?.keepsAlive == true)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: close\r\n\r\n")?.keepsAlive == false)
        // The version decides how an answer of unknown length is framed (chunked to HTTP/1.1 only).
        #expect(try parse("GET / HTTP/1.1\r\n\r\n")?.isHTTP11 == true)
        #expect(try parse("GET / HTTP/1.0\r\n\r\n")?.isHTTP11 == false)
    }

    @Test func whatIsNotPlainHTTPIsRefusedWithItsStatus() {
        #expect(refusal("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab") == 400)
        #expect(refusal("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(refusal("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 501)
        #expect(refusal("GET http://evil/ HTTP/1.1\r\n\r\n") == 400)
        #expect(refusal("get / HTTP/1.1\r\n\r\n") == 400)
        #expect(refusal("GET / HTTP/2\r\n\r\n") == 505)
        #expect(refusal("GET / HTTP/1.1\r\n folded\r\n\r\n") == 400)
        #expect(refusal("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n") == 400)
        let small = LoopbackHTTPRequest.Limits(headBytes: 64, headerCount: 2, bodyBytes: 4)
        #expect(refusal("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", small) == 413)
        #expect(refusal("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", small) == 431)
        #expect(refusal("GET /" + String(repeating: "a", count: 100), small) == 431)
    }

    @Test func theHeadIsFoundTheSameWhenItArrivesInPieces() {
        let bytes = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\nrest".utf8)
        let whole = LoopbackHTTPRequest.headEnd(bytes)
        #expect(whole == 27)
        for split in 0...bytes.count {
            let early = LoopbackHTTPRequest.headEnd(Array(bytes[..<split]))
            #expect((early ?? LoopbackHTTPRequest.headEnd(bytes, from: split - 3)) == whole, "split at \(split)")
        }
    }

    @Test func onlyLoopbackAddressesAreAccepted() throws {
        #expect(try LoopbackAddress.parse("127.0.0.1:0", defaultPort: 1) == LoopbackAddress(host: "127.0.0.1", port: 0))
        #expect(try LoopbackAddress.parse("localhost", defaultPort: 47080).port == 47080)
        #expect(try LoopbackAddress.parse("[::1]:8080", defaultPort: 1).description == "[::1]:8080")
        #expect(try LoopbackAddress.parse("127.1.2.3:9", defaultPort: 1).host == "127.1.2.3")
        for refused in [
            "0.0.0.0:0", "[::]:0", "10.0.0.1:80", "example.com:80", "127.0.0.1:70000", "[::ffff:127.0.0.1]:1",
        ] {
            #expect(throws: PortalAuthError.self, "\(refused)") { try LoopbackAddress.parse(refused, defaultPort: 1) }
        }
    }

    @Test func anAnswerNeverCarriesALineBreakFromAHeaderValue() {
        let bytes = LoopbackHTTPServer.serialize(
            .init(status: 200, headers: [("X-From-Server", "a\r\nSet-Cookie: evil")], body: Array("b".utf8)))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("\r\nSet-Cookie"))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix("Connection: close\r\n\r\nb"))
    }
}
