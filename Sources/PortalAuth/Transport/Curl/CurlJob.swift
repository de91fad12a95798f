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

    init(transfer: OpaquePointer, url: URL, host: String, port: Int, limits: TransferLimits) {
        self.transfer = transfer
        self.url = url
        self.host = host
        self.port = port
        self.limits = limits
    }
}
