import Dispatch

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs blocking storage calls on a dedicated thread, never on the Swift concurrency pool.
package enum BlockingIO {
    private static let queue = DispatchQueue(label: "portal-auth.storage")

    package static func run<T: Sendable>(_ blocking: Bool, _ body: @escaping @Sendable () throws -> T) async throws -> T
    {
        guard blocking else { return try body() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs a long blocking wait (a socket, a child process) on a thread of its own, off Swift's
    /// cooperative pool and off the storage queue.
    ///
    /// A new thread, not Dispatch's global queue: on Linux that queue adds threads only slowly
    /// while its threads block, so a few slow clients of `serve` (each answer written on one of
    /// them) held every answer back, the token endpoint's included.
    package static func detached(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(DetachedBody(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 1 << 20)
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<DetachedBody>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, box)
        guard started != 0 else { return }
        // (No thread to be had: the queue, slower, rather than nothing.)
        Unmanaged<DetachedBody>.fromOpaque(box).release()
        DispatchQueue.global(qos: .userInitiated).async(execute: body)
    }
}

/// What ``BlockingIO/detached(_:)`` hands to its thread.
private final class DetachedBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
