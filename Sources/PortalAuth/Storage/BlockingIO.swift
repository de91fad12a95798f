import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs blocking storage calls on a dedicated thread, never on the Swift concurrency pool.
enum BlockingIO {
    private static let queue = DispatchQueue(label: "portal-auth.storage")

    static func run<T: Sendable>(_ blocking: Bool, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard blocking else { return try body() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs a long blocking wait (a socket, a child process) on a thread of its own, off Swift's
    /// cooperative pool and off the storage queue.
    static func detached(_ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async(execute: body)
    }
}
