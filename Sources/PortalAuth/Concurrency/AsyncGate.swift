#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An async counting semaphore: at most `limit` holders at once, the others wait in order.
package final class AsyncGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }
    private let state: Locked<State>

    /// A gate with `limit` free places.
    package init(limit: Int) { state = Locked(State(available: limit)) }

    /// Waits for a free place; returns whether it had to wait (another holder gave it its place).
    @discardableResult
    package func acquire() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let go = state.withLock { s -> Bool in
                if s.available > 0 { s.available -= 1; return true }
                s.waiters.append(continuation)
                return false
            }
            if go { continuation.resume(returning: false) }
        }
    }

    /// How many wait for a place now.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Gives the place to the next waiter, or frees it.
    package func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if s.waiters.isEmpty { s.available += 1; return nil }
            return s.waiters.removeFirst()
        }
        next?.resume(returning: true)
    }
}
