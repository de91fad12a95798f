import Synchronization

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
    private let tasks = Mutex<[Key: Task<Value, any Error>]>([:])

    /// Runs `body` unless a run for `key` is under way, in which case its result is shared.
    func run(_ key: Key, _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = tasks.withLock { tasks -> Task<Value, any Error> in
            if let running = tasks[key] { return running }
            let task = Task<Value, any Error> {
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
}

/// An async counting semaphore: at most `limit` holders at once, the others wait in order.
final class AsyncGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(available: limit)) }

    /// Waits for a free place.
    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { s -> Bool in
                if s.available > 0 { s.available -= 1; return true }
                s.waiters.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    /// Gives the place to the next waiter, or frees it.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty { s.available += 1; return nil }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// An advisory lock shared by every portal-auth process of this user (flock on a file in
/// `$XDG_RUNTIME_DIR/portal-auth/locks`), so that only one process renews a credential at a time.
enum CrossProcessLock {
    static var directory: String {
        let env = ProcessInfo.processInfo.environment
        if let runtime = env["XDG_RUNTIME_DIR"], !runtime.isEmpty, access(runtime, W_OK) == 0 {
            return runtime + "/portal-auth/locks"
        }
        return "/tmp/portal-auth-\(getuid())/locks"
    }

    /// A file name for a lock key (FNV-1a of the key; the key itself may be a URL).
    static func fileName(for key: String) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return String(hash, radix: 16) + ".lock"
    }

    /// Runs `body` while holding the lock for `key`; waits (polling, so no thread blocks) up to `timeout` seconds.
    static func withLock<T: Sendable>(
        _ key: String, timeout: Double = 60, _ body: () async throws -> T
    ) async throws -> T {
        let dir = directory
        _ = mkdir(String(dir.dropLast("/locks".count)), 0o700)
        _ = mkdir(dir, 0o700)
        let path = dir + "/" + fileName(for: key)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw PortalAuthError(
                .storeFailure,
                "cannot create the lock file \(path): \(String(cString: strerror(errno))); check the permissions of \(dir)",
                cause: .posix(code: errno, message: String(cString: strerror(errno))))
        }
        defer { close(fd) }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw PortalAuthError(
                    .storeFailure, "cannot lock \(path): \(String(cString: strerror(errno)))",
                    cause: .posix(code: errno, message: String(cString: strerror(errno))))
            }
            guard ContinuousClock.now < deadline else {
                throw PortalAuthError(
                    .timedOut,
                    "another process has held the lock \(path) for over \(Int(timeout)) s: if none is running, remove the file"
                )
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}
