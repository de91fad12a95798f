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
        var headers: [(name: String, value: String)] = []
        for line in headerBlock.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmedWhitespace))
        }
        return TransportResponse(status: status, headers: headers, body: body, url: request.url)
    }
}
