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
    typealias Read = StateMachine.Read

    /// The state machine and what it tells to call: the transfer's resume and cancel.
    private struct Guarded {
        var machine: StateMachine
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
    private let state: ConditionLocked<Guarded>

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
        state = ConditionLocked(Guarded(machine: StateMachine(capacity: capacity)))
    }

    /// Applies `transform` to the body on its way (before a transfer claims it; false after).
    package func apply(_ transform: any Transform) -> Bool {
        state.withLock { state in
            guard !state.machine.isClaimed else { return false }
            self.transform = transform
            return true
        }
    }

    package static func == (left: RequestBodyStream, right: RequestBodyStream) -> Bool { left === right }

    /// Whether the body was read from the client whole (every byte of its announced length).
    package var isComplete: Bool { state.withLock { $0.machine.isComplete } }

    /// Whether a transfer took the body (it cannot be sent again).
    package var isClaimed: Bool { state.withLock { $0.machine.isClaimed } }

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
        let claim = state.withLock { state -> StateMachine.Claim in
            let claim = state.machine.claim()
            if claim != .alreadyClaimed {
                state.resume = resume
                state.cancel = cancel
            }
            return claim
        }
        if claim == .startPump { BlockingIO.detached { self.pump() } }
        return claim != .alreadyClaimed
    }

    /// Fills `buffer` with what has arrived: bytes, pause (nothing yet), the end, or abort (the
    /// client went away, or stopped sending).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        state.withLock { state in
            let (read, range) = state.machine.read(count: buffer.count)
            guard case .bytes(let count) = read else { return read }
            state.machine.pending.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + range.lowerBound, byteCount: count)
            }
            state.machine.consumed(count)
            return read
        }
    }

    // MARK: The pump and the server's side

    /// Ends the pump (a transfer that ended, or an answer that went out without the body) and,
    /// `waiting`, waits until it no longer reads the connection, so that it may be closed.
    package func stop(waiting: Bool = true) {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.machine.stop() && waiting ? state.cancel : nil
        }
        cancel?()
        // (The pump looks at the state at least every tenth of a second; the deadline is a bound
        // should a read hang.)
        if waiting {
            state.wait(until: { !$0.machine.isPumping }, timeout: .seconds(idleTimeout / 1000 + 5)) { _, _ in }
        }
        state.withLock { $0.cancel = nil }
    }

    /// Adds what the pump read, waiting (at most the idle timeout: a transfer that takes nothing
    /// for that long has stalled) while the buffer is full; false: stop reading the client.
    private func add(_ bytes: [UInt8], ended: Bool = false, failed: Bool = false) -> Bool {
        var (action, resume) = state.withLock { state in
            (state.machine.add(bytes, ended: ended, failed: failed), state.resume)
        }
        while true {
            switch action {
            case .stop: return false
            case .readOn(let wake):
                if wake { resume?() }
                return true
            case .waitForRoom(let wake):
                if wake { resume?() }
                resume = nil
                action = state.wait(
                    until: { $0.machine.room() != .waitForRoom(resume: false) },
                    timeout: .milliseconds(Int(idleTimeout))
                ) { state, timedOut in
                    if timedOut { _ = state.machine.stop() }
                    return state.machine.room()
                }
            }
        }
    }

    /// Reads the body from the client into the buffer, as room allows.
    private func pump() {
        defer {
            state.withLock { state in
                state.machine.pumpStopped()
                state.resume = nil
            }
        }
        var left = length - received.count
        guard add(transform?.feed(received) ?? received) else { return }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var idle: Int32 = 0
        while left > 0 {
            if !state.withLock({ $0.machine.readsOn }) { return }
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
