internal import CPortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bounds one transfer runs under: what a server may send (body after decompression, header
/// bytes and lines) and for how long (an overall deadline, except for a streamed body, and a
/// low-speed limit), with the
/// errors that name the limit that stopped it.
struct TransferLimits: Sendable {
    /// Which bound the C write callbacks stopped a transfer at.
    enum Exceeded: Sendable {
        case body, headers

        init?(_ limit: pa_limit) {
            switch limit {
            case PA_LIMIT_BODY: self = .body
            case PA_LIMIT_HEADERS: self = .headers
            default: return nil
            }
        }
    }

    var maxResponseSize: Int
    /// Whether ``maxResponseSize`` is the request's own (a token endpoint's, say), not the transport's.
    var requestSetMaxResponseSize: Bool
    var maxHeaderSize: Int
    var maxHeaderCount: Int
    var timeout: Double
    var lowSpeedLimit: Int
    var lowSpeedTime: Double
    /// The request's method: a HEAD answer announces a length it does not send.
    var method: TransportRequest.Method
    /// Whether a long success body is streamed (``ResponseBodyStream``): no size bound applies to it.
    var streams: Bool
    /// Whether the request's body is streamed from a local client (``RequestBodyStream``).
    var streamsBody: Bool

    init(_ request: TransportRequest, _ configuration: TransportConfiguration) {
        maxResponseSize = max(0, request.maxResponseSize ?? configuration.maxResponseSize)
        requestSetMaxResponseSize = request.maxResponseSize != nil
        maxHeaderSize = max(0, configuration.maxHeaderSize)
        maxHeaderCount = max(0, configuration.maxHeaderCount)
        timeout = request.timeout ?? configuration.timeout
        lowSpeedLimit = max(0, configuration.lowSpeedLimit)
        lowSpeedTime = configuration.lowSpeedTime
        method = request.method
        streams = request.responseStream != nil
        streamsBody = request.bodyStream != nil
    }

    /// The overall deadline, in seconds (0: none). A transfer that streams a body either way runs
    /// as long as its data flows: a 100 MB form from a client, or a large answer to one, takes as
    /// long as the slower side needs, and an overall deadline cut it part-way on a loaded machine.
    /// It stays bounded in time by the low-speed limit (and the local side by its own idle and
    /// write timeouts); without a low-speed limit the deadline holds.
    var deadline: Double { (streams || streamsBody) && lowSpeedLimit > 0 ? 0 : timeout }

    /// Sets the deadline, the low-speed limit, and the size bounds on `transfer`.
    func apply(to transfer: OpaquePointer, check: (CURLcode, String) throws -> Void) throws {
        let easy = pa_transfer_easy(transfer)
        try check(pa_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(deadline * 1000)), "TIMEOUT_MS")
        if lowSpeedLimit > 0 {
            try check(pa_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, lowSpeedLimit), "LOW_SPEED_LIMIT")
            try check(
                pa_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(lowSpeedTime.rounded(.up)))),
                "LOW_SPEED_TIME")
        }
        if maxResponseSize > 0, method != .head, !streams {
            // An announced Content-Length over the limit is refused before any of the body is read.
            try check(
                pa_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseSize)), "MAXFILESIZE")
        }
        pa_transfer_set_limits(transfer, maxResponseSize, maxHeaderSize, maxHeaderCount)
    }

    /// The error for an answer stopped at a size bound (`nil`: the body's, announced by
    /// Content-Length).
    func tooLarge(_ exceeded: Exceeded?, place: String, cause: PortalAuthError.Cause) -> PortalAuthError {
        switch exceeded {
        case .headers:
            return PortalAuthError(
                .responseTooLarge,
                "\(place) sent more response headers than allowed (at most \(maxHeaderCount) lines and "
                    + "\(Self.size(maxHeaderSize))): the transfer was stopped; the server or a proxy in front of it is "
                    + "misbehaving",
                remedy: .none, cause: cause)
        case .body, nil:
            let limit =
                requestSetMaxResponseSize
                ? "this request's maximum response size of \(Self.size(maxResponseSize))"
                : "the transport's maximum response size of \(Self.size(maxResponseSize))"
            return PortalAuthError(
                .responseTooLarge,
                "the answer from \(place) is larger than \(limit) (counted after decompression): the transfer "
                    + "was stopped",
                // A request's own limit (a token endpoint's) is the library's to keep; the transport's
                // is the program's to raise.
                remedy: requestSetMaxResponseSize ? .none : .raiseLimit(.responseSize, value: maxResponseSize),
                cause: cause)
        }
    }

    /// The error for CURLE_OPERATION_TIMEDOUT: the low-speed limit, the overall deadline, or
    /// (neither) the connect timeout.
    func timedOut(text: String, place: String, cause: PortalAuthError.Cause) -> PortalAuthError {
        let lower = text.lowercased()
        if lower.contains("too slow") {
            return PortalAuthError(
                .timedOut,
                "\(place) sent less than \(lowSpeedLimit) bytes per second for \(Self.seconds(lowSpeedTime)) (the "
                    + "low-speed limit): the transfer was stopped",
                remedy: .retryLater, cause: cause)
        }
        if lower.contains("operation timed out") {
            return PortalAuthError(
                .timedOut,
                "\(place) did not finish its answer within the request's deadline of \(Self.seconds(timeout)): the "
                    + "transfer was stopped",
                remedy: .raiseLimit(.requestTimeout, value: Int(timeout.rounded(.up))), cause: cause)
        }
        return PortalAuthError(
            .timedOut, "\(place) did not answer in time", remedy: .retryLater,
            cause: cause)
    }

    /// "64 MiB", "512 KiB", "100 bytes".
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// "60 s", "2.5 s".
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
