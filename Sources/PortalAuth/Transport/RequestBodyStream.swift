#if canImport(Glibc)
internal import Glibc
#endif

/// A request body passed on as the local client sends it instead of read whole first: a pump
/// thread reads it from the client's connection into a bounded buffer, and the transport's
/// upload takes it from there (pausing while the client is slower than the server).
///
/// It can be sent once: a request with a streamed body is not sent again after a refusal (the
/// transport says so with ``notResent(_:)``); only a body read whole can be.
package final class RequestBodyStream: @unchecked Sendable, Equatable {
    /// What changes the body on its way (a filter of form parameters): fed every piece in order,
    /// then asked for what it still holds at the end.
    package protocol Transform: AnyObject {
        func feed(_ bytes: [UInt8]) -> [UInt8]
        func end() -> [UInt8]
    }

    /// What the transport's read callback gets.
    enum Read: Equatable { case bytes(Int), pause, end, abort }

    private struct State {
        var pending: [UInt8] = []
        var offset = 0
        var ended = false
        var failed = false
        var aborted = false
        var claimed = false
        var pumping = false
        var wantsResume = false
        var resume: (@Sendable () -> Void)?
        var cancel: (@Sendable () -> Void)?
    }

    private let fd: Int32
    private let received: [UInt8]
    /// The body's length as the client announced it.
    package let length: Int
    private let idleTimeout: Int32
    /// How many bytes may wait for the transport before the pump stops reading the client.
    package let capacity: Int
    /// Set before a transfer claims the body; then only the pump uses it.
    private var transform: (any Transform)?
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state = State()

    /// The body of `length` bytes on `fd`, of which `received` arrived with the head; a client that
    /// sends nothing for `idleSeconds` fails it.
    package init(
        fd: Int32, received: [UInt8], length: Int, idleSeconds: Int = 30, capacity: Int = 1 << 20
    ) {
        self.fd = fd
        self.received = received
        self.length = length
        self.idleTimeout = Int32(max(1, idleSeconds) * 1000)
        self.capacity = max(1, capacity)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    /// Applies `transform` to the body on its way (before a transfer claims it; false after).
    package func apply(_ transform: any Transform) -> Bool {
        locked { state in
            guard !state.claimed else { return false }
            self.transform = transform
            return true
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package static func == (left: RequestBodyStream, right: RequestBodyStream) -> Bool { left === right }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Whether the body was read from the client whole (every byte of its announced length).
    package var isComplete: Bool { locked { $0.ended && !$0.failed } }

    /// Whether a transfer took the body (it cannot be sent again).
    package var isClaimed: Bool { locked { $0.claimed } }

    /// The error of a second attempt to send the body: the server refused the first (a token,
    /// renewed since), and the body was not kept to be sent again.
    static func notResent(_ place: String) -> PortalAuthError {
        PortalAuthError(
            .invalidToken,
            "\(place) refused the credential; the request's body was streamed (longer than the part kept to send "
                + "again), so it was not sent again: send the request again",
            remedy: .retryLater, cause: .arcGIS(code: 498, messageCode: nil, message: "Invalid token.", details: []))
    }

    // MARK: The transport's side

    /// Takes the body for one transfer and starts reading it from the client; false when a
    /// transfer already took it. `resume` continues the paused upload, `cancel` ends the transfer.
    func claim(resume: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) -> Bool {
        let first = locked { state -> Bool in
            guard !state.claimed else { return false }
            state.claimed = true
            state.pumping = !state.aborted
            state.resume = resume
            state.cancel = cancel
            return true
        }
        if first { BlockingIO.detached { self.pump() } }
        return first
    }

    /// Fills `buffer` with what has arrived: bytes, pause (nothing yet), the end, or abort (the
    /// client went away, or stopped sending).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        locked { state in
            if state.aborted || state.failed { return .abort }
            let available = state.pending.count - state.offset
            guard available > 0 else {
                if state.ended { return .end }
                state.wantsResume = true
                return .pause
            }
            let count = min(available, buffer.count)
            state.pending.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
            }
            state.offset += count
            if state.offset == state.pending.count {
                state.pending.removeAll(keepingCapacity: true)
                state.offset = 0
            } else if state.offset >= capacity {
                // What was sent goes (once per `capacity` bytes: linear), so the buffer stays bounded.
                state.pending.removeFirst(state.offset)
                state.offset = 0
            }
            pthread_cond_broadcast(condition)
            return .bytes(count)
        }
    }

    // MARK: The pump and the server's side

    /// Ends the pump (a transfer that ended, or an answer that went out without the body) and,
    /// `waiting`, waits until it no longer reads the connection, so that it may be closed.
    package func stop(waiting: Bool = true) {
        let cancel = locked { state -> (@Sendable () -> Void)? in
            if !state.ended { state.aborted = true }
            pthread_cond_broadcast(condition)
            while waiting, state.pumping { pthread_cond_wait(condition, mutex) }
            defer { state.cancel = nil }
            return state.ended || !waiting ? nil : state.cancel
        }
        cancel?()
    }

    private func add(_ bytes: [UInt8], ended: Bool = false, failed: Bool = false) -> Bool {
        let (resume, going) = locked { state -> ((@Sendable () -> Void)?, Bool) in
            state.pending += bytes
            state.ended = state.ended || ended
            state.failed = state.failed || failed
            while !state.aborted, !ended, state.pending.count - state.offset >= capacity {
                pthread_cond_wait(condition, mutex)
            }
            let resume = state.wantsResume ? state.resume : nil
            state.wantsResume = false
            return (resume, !state.aborted)
        }
        resume?()
        return going
    }

    /// Reads the body from the client into the buffer, as room allows.
    private func pump() {
        defer {
            locked { state in
                state.pumping = false
                state.resume = nil
                pthread_cond_broadcast(condition)
            }
        }
        var left = length - received.count
        guard add(transform?.feed(received) ?? received) else { return }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var idle: Int32 = 0
        while left > 0 {
            if locked({ $0.aborted }) { return }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 {
                idle += 100
                if idle < idleTimeout { continue }
            }
            // (Nothing for the idle timeout, or a failed poll: the body is incomplete.)
            let count = ready > 0 ? Glibc.read(fd, &buffer, min(buffer.count, left)) : 0
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            guard count > 0 else {
                _ = add([], ended: true, failed: true)
                return
            }
            idle = 0
            left -= count
            let piece = Array(buffer[0..<count])
            guard add(transform?.feed(piece) ?? piece) else { return }
        }
        _ = add(transform?.end() ?? [], ended: true)
    }
}
