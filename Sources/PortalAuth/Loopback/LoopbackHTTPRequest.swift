/// One HTTP/1.1 request as a local client sends it to ``LoopbackHTTPServer``: read from untrusted
/// bytes (any program on the machine can connect), within fixed bounds and in linear time. Pure
/// functions, so that the fuzz target (Fuzz/FuzzLoopbackHTTPRequest) exercises exactly what the
/// server runs.
package struct LoopbackHTTPRequest: Sendable, Equatable {
    /// One header as sent (the name's case kept).
    package struct Header: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// The method, `GET` or `POST` and the like (upper-case letters only).
    package var method: String
    /// The request target as sent: an origin-form path and query (`/a/b?c=d`).
    package var target: String
    /// The headers, in order.
    package var headers: [Header]
    /// The body (`Content-Length` bytes; empty without one, or when it is streamed).
    package var body: [UInt8]
    /// The body as it arrives, when it is longer than ``Limits/bodyBytes`` (within
    /// ``Limits/streamedBodyBytes``): the server hands the request over on its head.
    package var bodyStream: RequestBodyStream?
    /// Whether the client keeps the connection open for another request (HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`).
    package var keepsAlive = false
    /// Whether the request line said HTTP/1.1 (an answer of unknown length may then be chunked).
    package var isHTTP11 = true

    package init(
        method: String, target: String, headers: [Header], body: [UInt8], keepsAlive: Bool = false,
        isHTTP11: Bool = true
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.keepsAlive = keepsAlive
        self.isHTTP11 = isHTTP11
    }

    /// The first header named `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { ASCIIText.equalsIgnoringCase($0.name, name) }?.value
    }

    /// The target's path (before `?`) and query (after it, without the `?`).
    package var pathAndQuery: (path: String, query: String) { LoopbackRedirectRequest.split(target) }

    /// The bounds of what is read from a client.
    package struct Limits: Sendable, Equatable {
        /// The request line and headers, in bytes.
        package var headBytes: Int
        /// The number of header lines.
        package var headerCount: Int
        /// The body read whole before the request is answered, in bytes.
        package var bodyBytes: Int
        /// A longer body, up to this many bytes, is streamed (``LoopbackHTTPRequest/bodyStream``);
        /// 0: none is.
        package var streamedBodyBytes: Int

        package init(
            headBytes: Int = 16_384, headerCount: Int = 100, bodyBytes: Int = 8 << 20, streamedBodyBytes: Int = 0
        ) {
            self.headBytes = headBytes
            self.headerCount = headerCount
            self.bodyBytes = bodyBytes
            self.streamedBodyBytes = streamedBodyBytes
        }
    }

    /// Why a request is not read: the status to answer with, and a short reason for the body.
    package struct Refusal: Error, Sendable, Equatable {
        package var status: Int
        package var reason: String
    }

    /// The head of a request: everything but the body, and the body's announced length.
    package struct Head: Sendable, Equatable {
        package var method: String
        package var target: String
        package var headers: [Header]
        package var contentLength: Int
        /// See ``LoopbackHTTPRequest/keepsAlive``.
        package var keepsAlive: Bool
        /// See ``LoopbackHTTPRequest/isHTTP11``.
        package var isHTTP11 = true
    }

    /// Where the head of `bytes` ends (the index just after the blank line), looking from
    /// `start` (a caller that reads in pieces passes how far it looked before, less 3, so the
    /// whole search stays linear); nil while the blank line has not arrived.
    package static func headEnd(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        var index = max(0, start)
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A {
                if bytes[index + 1] == 0x0A { return index + 2 }
                if bytes[index + 1] == 0x0D, index + 2 < bytes.count, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// Reads a complete head (`bytes` up to ``headEnd(_:from:)``) within `limits`.
    package static func parseHead(_ bytes: ArraySlice<UInt8>, limits: Limits) throws(Refusal) -> Head {
        guard bytes.count <= limits.headBytes else { throw Refusal(status: 431, reason: "request head too large") }
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        for index in bytes.indices where bytes[index] == 0x0A {
            var line = bytes[lineStart..<index]
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
            lineStart = index + 1
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw Refusal(status: 400, reason: "no request line") }
        guard lines.count - 1 <= limits.headerCount else {
            throw Refusal(status: 431, reason: "too many header lines")
        }
        let (method, target, http11) = try requestLine(first)
        var headers: [Header] = []
        for line in lines.dropFirst() { headers.append(try header(line)) }
        let contentLength = try bodyLength(headers, limits: limits)
        // `Connection` is a list of options (RFC 9110 §7.6.1), each compared without case.
        let options = headers.filter { ASCIIText.equalsIgnoringCase($0.name, "connection") }.flatMap {
            $0.value.split(separator: ",").map(ASCIIText.trimmingBlanks)
        }
        let keepsAlive =
            http11
            ? !options.contains { ASCIIText.equalsIgnoringCase($0, "close") }
            : options.contains { ASCIIText.equalsIgnoringCase($0, "keep-alive") }
        return Head(
            method: method, target: target, headers: headers, contentLength: contentLength, keepsAlive: keepsAlive,
            isHTTP11: http11)
    }

    /// `METHOD SP TARGET SP HTTP/1.x`: the method upper-case letters, the target an origin-form
    /// path of visible ASCII.
    private static func requestLine(_ line: ArraySlice<UInt8>) throws(Refusal) -> (String, String, Bool) {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].count <= 16,
            parts[0].allSatisfy({ (0x41...0x5A).contains($0) })
        else { throw Refusal(status: 400, reason: "malformed request line") }
        guard parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8) else {
            throw Refusal(status: 505, reason: "HTTP/1.0 or HTTP/1.1 only")
        }
        let target = parts[1]
        guard target.first == 0x2F, target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Refusal(status: 400, reason: "malformed request target")
        }
        return (
            String(decoding: parts[0], as: UTF8.self), String(decoding: target, as: UTF8.self),
            parts[2].elementsEqual("HTTP/1.1".utf8)
        )
    }

    /// `Name: value`: the name a token, the value without control characters (no line folding).
    private static func header(_ line: ArraySlice<UInt8>) throws(Refusal) -> Header {
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else {
            throw Refusal(status: 400, reason: "malformed header line")
        }
        let name = line[..<colon]
        guard name.allSatisfy(isTokenCharacter) else { throw Refusal(status: 400, reason: "malformed header name") }
        var value = line[(colon + 1)...]
        while value.first == 0x20 || value.first == 0x09 { value = value.dropFirst() }
        while value.last == 0x20 || value.last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw Refusal(status: 400, reason: "control character in a header")
        }
        return Header(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Whether `byte` may be in a header name (RFC 9110's `tchar`).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The body's length: one `Content-Length` of digits within the limit (every copy the same);
    /// a `Transfer-Encoding` is not read.
    private static func bodyLength(_ headers: [Header], limits: Limits) throws(Refusal) -> Int {
        if headers.contains(where: { ASCIIText.equalsIgnoringCase($0.name, "transfer-encoding") }) {
            throw Refusal(status: 501, reason: "Transfer-Encoding is not read: send Content-Length")
        }
        let lengths = Set(headers.filter { ASCIIText.equalsIgnoringCase($0.name, "content-length") }.map(\.value))
        guard let text = lengths.first else { return 0 }
        guard lengths.count == 1, !text.isEmpty, text.utf8.count <= 12,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let length = Int(text)
        else { throw Refusal(status: 400, reason: "malformed Content-Length") }
        guard length <= max(limits.bodyBytes, limits.streamedBodyBytes) else {
            throw Refusal(status: 413, reason: "request body too large")
        }
        return length
    }

    /// The request in `bytes`, once its head and its whole body have arrived: nil while they
    /// have not; a ``Refusal`` for a head that is not read.
    package static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(Refusal) -> LoopbackHTTPRequest? {
        guard let end = headEnd(bytes) else {
            if bytes.count > limits.headBytes { throw Refusal(status: 431, reason: "request head too large") }
            return nil
        }
        let head = try parseHead(bytes[..<end], limits: limits)
        guard head.contentLength <= limits.bodyBytes else {
            throw Refusal(status: 413, reason: "request body too large")
        }
        guard bytes.count - end >= head.contentLength else { return nil }
        return LoopbackHTTPRequest(
            method: head.method, target: head.target, headers: head.headers,
            body: Array(bytes[end..<(end + head.contentLength)]), keepsAlive: head.keepsAlive,
            isHTTP11: head.isHTTP11)
    }
}
