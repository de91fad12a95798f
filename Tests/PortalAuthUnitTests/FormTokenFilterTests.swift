import PortalAuth
import Testing

/// The filter that drops a client's `token` parameters from a form streamed through
/// `portal-auth serve` (``FormTokenFilter``): the same answer however the body is cut in pieces.
@Suite struct FormTokenFilterTests {
    /// The body filtered whole, then byte by byte; both must agree.
    private func filtered(_ body: String) -> String {
        let bytes = Array(body.utf8)
        let whole = FormTokenFilter()
        let once = whole.feed(bytes) + whole.end()
        let split = FormTokenFilter()
        var pieces: [UInt8] = []
        for byte in bytes { pieces += split.feed([byte]) }
        pieces += split.end()
        #expect(once == pieces, "\(body)")
        return String(decoding: once, as: UTF8.self)
    }

    @Test func everyTokenParameterIsDroppedHoweverItIsSpelled() {
        #expect(filtered("where=1%3D1&token=stolen&f=json") == "where=1%3D1&f=json")
        #expect(filtered("token=a&where=x") == "where=x")
        #expect(filtered("where=x&TOKEN=a") == "where=x")
        #expect(filtered("where=x&t%6Fken=a&%74%6F%6B%65%6E=b&Token") == "where=x")
        #expect(filtered("token=a&token=b") == "")
    }

    @Test func otherParametersPassUnchanged() {
        #expect(filtered("tokens=a&my_token=b&tok=c&f=json") == "tokens=a&my_token=b&tok=c&f=json")
        #expect(
            filtered("data=" + String(repeating: "a", count: 100) + "&x") == "data="
                + String(repeating: "a", count: 100) + "&x")
        // A name longer than any spelling of `token` goes on at once, even unfinished.
        let long = "averylongparametername=1"
        #expect(filtered(long) == long)
        #expect(filtered("a=token&b=token%3Dx") == "a=token&b=token%3Dx")
    }
}
