#if canImport(Glibc)
internal import Glibc
#endif

/// A value behind a pthread mutex with a condition to wait on: the lock for state that one thread
/// waits on while others change it (the streams between a local client and a transfer).
///
/// Like ``Locked`` (and for the same reason: the sanitizers see pthread calls), with waits that
/// always have a deadline, measured on the monotonic clock (a clock set back or forward does not
/// stretch or cut them). Every ``withLock(_:)`` wakes the waiters, which check again what they
/// wait for.
package final class ConditionLocked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        self.value = value
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held, then wakes every waiter.
    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return body(&value)
    }

    /// Waits, the lock released meanwhile, until `isReady` holds or `timeout` has passed, then runs
    /// `body` with the value, the lock held (its second argument: whether the wait timed out, with
    /// `isReady` still false), and wakes every waiter.
    package func wait<Result>(
        until isReady: (Value) -> Bool, timeout: Duration, then body: (inout Value, Bool) -> Result
    ) -> Result {
        let deadline = Self.monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        var timedOut = false
        while !isReady(value) {
            var until = deadline
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT {
                timedOut = !isReady(value)
                break
            }
        }
        return body(&value, timedOut)
    }

    /// The monotonic clock's time `timeout` from now.
    private static func monotonicDeadline(after timeout: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = max(timeout, .zero).components
        var nanoseconds = Int64(now.tv_nsec) + attoseconds / 1_000_000_000
        var total = Int64(now.tv_sec) + min(seconds, Int64(Int32.max))
        total += nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        return timespec(tv_sec: Int(total), tv_nsec: Int(nanoseconds))
    }
}
