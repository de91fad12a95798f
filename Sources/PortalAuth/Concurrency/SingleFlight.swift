#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Concurrent callers with the same key share one execution of the work.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let tasks = Locked<[Key: Task<Value, any Error>]>([:])

    /// Runs `body` unless a run for `key` is under way, in which case its result is shared.
    func run(_ key: Key, _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = tasks.withLock { tasks -> Task<Value, any Error> in
            if let running = tasks[key] { return running }
            // (On the global executor, whatever the caller's: a flight may block its thread (a password
            // read from the keyring, a prompt), which must not hold up a transport's own thread.)
            let task = Task<Value, any Error>(executorPreference: globalConcurrentExecutor) {
                defer { _ = self.tasks.withLock { $0.removeValue(forKey: key) } }
                return try await body()
            }
            tasks[key] = task
            return task
        }
        return try await task.value
    }

    /// The run under way for `key`, if any (to wait for it without starting one).
    func running(_ key: Key) -> Task<Value, any Error>? {
        tasks.withLock { $0[key] }
    }

    /// Whether no flight is running (then ``running(_:)`` is nil for every key).
    var isIdle: Bool {
        tasks.withLock { $0.isEmpty }
    }
}
