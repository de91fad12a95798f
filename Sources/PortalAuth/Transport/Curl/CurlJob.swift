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

/// One request in flight.
final class CurlJob: @unchecked Sendable {
    let transfer: OpaquePointer
    let url: URL
    let host: String
    let port: Int
    let limits: TransferLimits
    // Touched by the submitting task before submission, then only by the loop thread.
    var continuation: CheckedContinuation<CurlOutcome, any Error>?
    let cancelled = Atomic<Bool>(false)
    /// Where a long success body goes (``ResponseBodyStream``), set before submission.
    let stream: ResponseBodyStream?
    /// Where the request body comes from (``RequestBodyStream``), set before submission.
    let upload: RequestBodyStream?
    /// Set by the loop thread when the body is streamed: the continuation was resumed at that
    /// point, and the end of the transfer goes to the stream.
    var streaming = false
    /// The loop that runs a streamed transfer (for the stream's resume and cancel); nil once done.
    var loop: CurlEventLoop?

    init(
        transfer: OpaquePointer, url: URL, host: String, port: Int, limits: TransferLimits,
        stream: ResponseBodyStream? = nil, upload: RequestBodyStream? = nil
    ) {
        self.transfer = transfer
        self.url = url
        self.host = host
        self.port = port
        self.limits = limits
        self.stream = stream
        self.upload = upload
    }
}
