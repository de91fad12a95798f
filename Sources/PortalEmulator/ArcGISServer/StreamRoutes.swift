import Crypto
import Hummingbird
import HummingbirdCore
import NIOCore

/// Two resources of the federated server that send and take bodies in pieces, for tests of a
/// proxy that streams them (they need a valid server token, like the rest of the server):
///
/// - `GET /server/rest/services/Stream/MapServer/bytes?size=N[&length=1][&hold=NAME&holdAt=M]`:
///   N bytes (byte i is `i % 256`), in 64 KiB pieces as the client takes them, with
///   `Content-Length` when `length=1`, else chunked; with `hold`, the answer stops after `holdAt`
///   bytes until `POST /emulator/stream-release name=NAME` (``StreamHolds``;
///   `GET /emulator/stream?name=NAME` tells how far it got).
/// - `POST /server/rest/services/Stream/MapServer/echo`: reads the body piece by piece and answers
///   `{"bytes": N, "sha256": HEX, "contentType": TYPE, "head": FIRST64, "tail": LAST64}`.
enum StreamRoutes {
    static let prefix = "/server/rest/services/stream/mapserver/"

    /// Whether `target` (a path and query) names one of these resources.
    static func matches(_ target: String) -> Bool {
        let lower = target.prefix { $0 != "?" }.lowercased()
        return lower == prefix + "bytes" || lower == prefix + "echo"
    }

    /// Answers `request` (whose head is `incoming`, without a body) on `writer`.
    static func respond(
        _ request: Request, incoming: IncomingRequest, writer: consuming ResponseWriter, context: EmulatorContext
    ) async throws {
        if case .failure(let error) = context.requireToken(incoming, realm: .server) {
            try await writeJSON(error.json, to: writer)
            return
        }
        context.counters.countRequest(path: incoming.path, host: incoming.host, carriesToken: true)
        if incoming.path.lowercased().hasSuffix("/echo") {
            try await echo(request, incoming: incoming, writer: writer)
        } else {
            try await sendBytes(incoming, writer: writer, context: context)
        }
    }

    /// Answers `json` with 200 (as ArcGIS answers its errors too).
    private static func writeJSON(_ json: JSONValue, to writer: consuming ResponseWriter) async throws {
        try await writer.write(
            response: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(json.serialized().utf8))))
    }

    /// `POST .../echo`: reads the body piece by piece and answers its size, SHA-256, content type
    /// and first and last 64 bytes.
    private static func echo(
        _ request: Request, incoming: IncomingRequest, writer: consuming ResponseWriter
    ) async throws {
        var hash = SHA256()
        var count = 0
        var head: [UInt8] = []
        var tail: [UInt8] = []
        for try await piece in request.body {
            count += piece.readableBytes
            piece.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
            if head.count < 64 { head += piece.readableBytesView.prefix(64 - head.count) }
            tail = Array((tail + piece.readableBytesView.suffix(64)).suffix(64))
        }
        let hex = hash.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        let json = JSONValue.object([
            ("bytes", .number(count)), ("sha256", .string(hex.joined())),
            ("contentType", .string(incoming.headers["content-type"] ?? "")),
            ("head", .string(String(decoding: head, as: UTF8.self))),
            ("tail", .string(String(decoding: tail, as: UTF8.self))),
        ])
        try await writeJSON(json, to: writer)
    }

    /// `GET .../bytes?size=N`: N bytes in 64 KiB pieces as the client takes them, held at `holdAt`
    /// until released when `hold` names the stream.
    private static func sendBytes(
        _ incoming: IncomingRequest, writer: consuming ResponseWriter, context: EmulatorContext
    ) async throws {
        let size = max(0, Int(incoming.parameter("size") ?? "") ?? 0)
        let hold = incoming.parameter("hold")
        let holdAt = Int(incoming.parameter("holdAt") ?? "") ?? 0
        let holds = context.streams
        let pattern = (0..<(65_536 + 256)).map { UInt8($0 % 256) }
        let body = ResponseBody(contentLength: incoming.parameter("length") == "1" ? size : nil) { writer in
            var sent = 0
            do {
                while sent < size {
                    if let hold, sent >= holdAt, !holds.progress(hold).released { await holds.waitForRelease(hold) }
                    var end = min(size, sent + 65_536)
                    if hold != nil, sent < holdAt { end = min(end, holdAt) }
                    try await writer.write(ByteBuffer(bytes: pattern[(sent % 256)..<(sent % 256 + end - sent)]))
                    sent = end
                    if let hold { holds.update(hold) { $0.sent = sent } }
                }
                try await writer.finish(nil)
                if let hold { holds.update(hold) { $0.done = true } }
            } catch {
                if let hold { holds.update(hold) { $0.aborted = true } }
                throw error
            }
        }
        var fields: HTTPFields = [.contentType: "application/octet-stream"]
        if incoming.parameter("length") == "1" { fields[.contentLength] = String(size) }
        try await writer.write(response: HTTPResponse(status: .ok, headerFields: fields), body: body)
    }
}
