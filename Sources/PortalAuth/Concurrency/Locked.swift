#if canImport(Glibc)
internal import Glibc
#endif

/// A value behind a pthread mutex: the lock for state that tasks and threads share.
///
/// The standard library's `Synchronization.Mutex` locks on Linux with futex calls inside the
/// uninstrumented runtime, so ThreadSanitizer sees no order between two critical sections and
/// reports every guarded access as a race. `pthread_mutex_lock` is intercepted by the sanitizers,
/// so with this lock a `--sanitize=thread` run reports only real races. It also holds C pointers,
/// which `Mutex`'s sending closures cannot carry. Never held across an `await`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension Locked where Value == Void {
    /// Runs `body` with the lock held: a lock that guards no value, such as calls into a C library.
    ///
    /// It never touches the zero-sized value: Swift gives that the address of the mutex pointer,
    /// and ThreadSanitizer took `body(&value)` for a write to the pointer every caller reads.
    public func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
