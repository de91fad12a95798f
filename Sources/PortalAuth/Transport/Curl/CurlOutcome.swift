internal import CPortalAuth
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the loop hands back to the waiting task.
struct CurlOutcome: Sendable {
    var code: Int32
    var status: Int
    var headerBlock: String
    var body: [UInt8]
    var errorText: String
    /// The errno libcurl saw on a failed connect (`CURLINFO_OS_ERRNO`), 0 otherwise.
    var osErrno: Int = 0
    var effectiveURL: String?
    /// The size bound the transfer was stopped at, if any.
    var exceeded: TransferLimits.Exceeded? = nil

    func response(for request: TransportRequest, job: CurlJob) throws -> TransportResponse {
        if exceeded != nil || code == CURLE_FILESIZE_EXCEEDED.number {
            throw job.limits.tooLarge(
                exceeded, place: "\(job.host):\(job.port)", cause: .curl(code: code, message: errorText))
        }
        guard code == 0 else {
            throw CurlErrors.error(
                code: code, text: errorText, host: job.host, port: job.port, limits: job.limits, osErrno: osErrno)
        }
        return TransportResponse(status: status, headers: Self.fields(of: headerBlock), body: body, url: request.url)
    }

    /// The header fields of a block of header lines (`CRLF` between them): each line with a colon,
    /// but the status lines (`HTTP/…`), as its name and its value without the blanks around it.
    /// An ASCII block, the usual one, is read byte by byte; any other by characters, with the same result.
    static func fields(of block: String) -> [(name: String, value: String)] {
        let bytes = Array(block.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return characterFields(of: block) }
        var headers: [(name: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, !(bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A) {
                end += 1
            }
            let line = bytes[start..<end]
            start = end + 2
            guard let colon = line.firstIndex(of: 0x3A), !line.starts(with: "HTTP/".utf8) else { continue }
            var value = line[(colon + 1)...]
            while let first = value.first, isBlank(first) { value = value.dropFirst() }
            while let last = value.last, isBlank(last) { value = value.dropLast() }
            headers.append(
                (String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return headers
    }

    /// The ASCII characters `Character.isWhitespace` takes for blanks (tab to carriage return, space).
    private static func isBlank(_ byte: UInt8) -> Bool { (0x09...0x0D).contains(byte) || byte == 0x20 }

    /// ``fields(of:)`` read by characters (`CRLF` is one character).
    static func characterFields(of block: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for line in block.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmedWhitespace))
        }
        return headers
    }
}
