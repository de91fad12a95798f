import Dispatch
import Foundation

/// Turns SIGINT/SIGTERM into an awaitable event. Create it before starting work so that an
/// early signal is not lost.
final class SignalWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(signals: [Int32]) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func deliver(_ number: Int32) {
        lock.lock()
        if received == nil { received = number }
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: number)
    }

    /// Waits for the first signal and returns its number.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let received {
                lock.unlock()
                continuation.resume(returning: received)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}
