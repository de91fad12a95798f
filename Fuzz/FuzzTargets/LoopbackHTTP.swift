// Body of the fuzz target for what `portal-auth serve` reads from local clients: the HTTP request
// parser of LoopbackHTTPServer, the answer it writes, and the --listen address.
import PortalAuth
import PortalAuthServe

extension FuzzTargets {
    /// A local client's bytes (`LoopbackHTTPRequest`): the head is found the same way whether the
    /// bytes arrive at once or in two pieces; an accepted request has an upper-case method, an
    /// origin-form target of visible ASCII, header values without line breaks and exactly the
    /// announced body; an answer carrying its text never gains a header line; a `--listen`
    /// address read from it is loopback.
    public static func loopbackHTTPRequest(_ bytes: [UInt8]) {
        let limits = LoopbackHTTPRequest.Limits(headBytes: 2048, headerCount: 20, bodyBytes: 4096)
        let whole = LoopbackHTTPRequest.headEnd(bytes)
        if let split = bytes.first.map({ Int($0) % (bytes.count + 1) }) {
            // The server looks again from where it stopped (less 3) as more bytes arrive.
            let early = LoopbackHTTPRequest.headEnd(Array(bytes[..<split]))
            let late = early ?? LoopbackHTTPRequest.headEnd(bytes, from: split - 3)
            precondition(late == whole, "the head ends elsewhere when read in two pieces")
        }
        do {
            guard let request = try LoopbackHTTPRequest.parse(bytes, limits: limits) else { return }
            precondition(whole != nil, "a request without the end of its head")
            check(request, limits: limits)
        } catch {
            precondition([400, 413, 431, 501, 505].contains(error.status), "an unexpected refusal \(error.status)")
        }
        if let text = String(validating: bytes.prefix(64), as: UTF8.self),
            let address = try? LoopbackAddress.parse(text, defaultPort: 1)
        {
            precondition(LoopbackAddress.isLoopback(address.host), "a --listen address that is not loopback")
        }
    }

    private static func check(_ request: LoopbackHTTPRequest, limits: LoopbackHTTPRequest.Limits) {
        precondition(!request.method.isEmpty && request.method.utf8.allSatisfy { (0x41...0x5A).contains($0) })
        precondition(request.target.hasPrefix("/") && request.target.utf8.allSatisfy { (0x21...0x7E).contains($0) })
        precondition(request.headers.count <= limits.headerCount, "more header lines than allowed")
        precondition(request.body.count <= limits.bodyBytes, "a body over the limit")
        for header in request.headers {
            precondition(!header.value.contains("\r") && !header.value.contains("\n"), "a line break in a value")
            precondition(!header.name.isEmpty && !header.name.contains(":"), "a malformed header name")
        }
        // An answer that repeats the client's text (a server's header, an error) gains no line.
        let answer = LoopbackHTTPServer.serialize(
            .init(status: 400, headers: request.headers.map { ($0.name, $0.value) }, body: request.body))
        let head = answer.prefix(answer.count - request.body.count)
        let lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).count
        precondition(lines == request.headers.count + 5, "an answer gained a header line")
    }
}
