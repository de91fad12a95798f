#if canImport(Glibc)
internal import Glibc
#endif

/// A response body passed on as it arrives instead of read whole: the bounded buffer between the
/// transport, which fills it from libcurl's write callback, and one reader (a local proxy writing
/// to its client), which drains it.
///
/// Only a success (2xx) answer whose body grows past ``streamAfter`` bytes is streamed; anything
/// shorter, and every other status, is read whole as without a stream, so that whoever sends the
/// request can still read it (an ArcGIS error, a refused token, a redirect) and send it again.
/// Once streamed (``isCommitted``), the transport's ``TransportResponse`` carries the status and
/// headers and an empty body, and the body comes from ``next()``.
///
/// Bounded: when more than ``capacity`` bytes wait for the reader, the transfer is paused until
/// the reader has taken half of them (so a client that reads slowly slows the server down, and
/// memory stays bounded); ``abort()`` (a client that stopped reading, or went away) ends the
/// transfer. The transport's body size limit does not apply to a streamed body; its deadlines do.
package final class ResponseBodyStream: @unchecked Sendable {
    /// What ``next()`` gives.
    package enum Piece: Sendable, Equatable {
        /// More of the body.
        case bytes([UInt8])
        /// The body ended whole.
        case end
        /// The transfer failed or was aborted: the body is incomplete.
        case failed
    }

    /// How many bytes of a body are read whole before it is streamed.
    package let streamAfter: Int
    /// How many bytes may wait for the reader before the transfer is paused.
    package let capacity: Int

    private struct State {
        var pieces: [[UInt8]] = []
        var head = 0
        var buffered = 0
        var committed = false
        var ended = false
        var failed = false
        var aborted = false
        var paused = false
        var resume: (@Sendable () -> Void)?
        var cancel: (@Sendable () -> Void)?
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state = State()

    /// A stream that takes over after `streamAfter` bytes and pauses the transfer with more than
    /// `capacity` bytes waiting.
    package init(streamAfter: Int = 256 << 10, capacity: Int = 1 << 20) {
        self.streamAfter = max(0, streamAfter)
        self.capacity = max(1, capacity)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Whether the body is being streamed (the response's own body is empty).
    package var isCommitted: Bool { locked { $0.committed } }

    /// Whether a status's body may be streamed: success, not a redirect, an error or a challenge.
    static func streams(status: Int) -> Bool { (200..<300).contains(status) && status != 204 && status != 205 }

    // MARK: The transport's side (the event-loop thread)

    /// Takes over the body: `prefix` is what was read before; `resume` continues a paused transfer
    /// and `cancel` ends it (both may be called from any thread). False when already aborted.
    func commit(
        prefix: [UInt8], resume: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void
    )
        -> Bool
    {
        locked { state in
            state.committed = true
            state.resume = resume
            state.cancel = cancel
            if !prefix.isEmpty {
                state.pieces.append(prefix)
                state.buffered += prefix.count
            }
            pthread_cond_broadcast(condition)
            return !state.aborted
        }
    }

    /// What the write callback answers for `bytes`: taken, pause (offer them again later), or
    /// abort.
    enum Push { case taken, pause, abort }

    /// Adds `bytes` unless ``capacity`` bytes already wait (then the transfer pauses).
    func push(_ bytes: UnsafeRawBufferPointer) -> Push {
        locked { state in
            if state.aborted { return .abort }
            if state.buffered >= capacity {
                state.paused = true
                return .pause
            }
            state.pieces.append(Array(bytes))
            state.buffered += bytes.count
            pthread_cond_broadcast(condition)
            return .taken
        }
    }

    /// The transfer ended: whole (`failed` false) or not.
    func finish(failed: Bool) {
        locked { state in
            state.ended = true
            state.failed = state.failed || failed
            state.resume = nil
            state.cancel = nil
            pthread_cond_broadcast(condition)
        }
    }

    // MARK: The reader's side

    /// The next piece of the body, waiting for it (on a thread that may block: the transport's
    /// deadline ends the wait at the latest).
    package func next() -> Piece {
        let (piece, resume) = locked { state -> (Piece?, (@Sendable () -> Void)?) in
            while state.head == state.pieces.count, !state.ended, !state.aborted {
                pthread_cond_wait(condition, mutex)
            }
            if state.aborted { return (.failed, nil) }
            guard state.head < state.pieces.count else { return (state.failed ? .failed : .end, nil) }
            let bytes = state.pieces[state.head]
            state.pieces[state.head] = []
            state.head += 1
            if state.head == state.pieces.count {
                state.pieces.removeAll(keepingCapacity: true)
                state.head = 0
            }
            state.buffered -= bytes.count
            var resume: (@Sendable () -> Void)?
            if state.paused, state.buffered <= capacity / 2 {
                state.paused = false
                resume = state.resume
            }
            return (.bytes(bytes), resume)
        }
        resume?()
        return piece ?? .failed
    }

    /// Ends the transfer: the reader will not read on (its client stopped reading or went away).
    package func abort() {
        let cancel = locked { state -> (@Sendable () -> Void)? in
            state.aborted = true
            state.pieces.removeAll()
            state.head = 0
            state.buffered = 0
            pthread_cond_broadcast(condition)
            defer { state.cancel = nil }
            return state.ended ? nil : state.cancel
        }
        cancel?()
    }
}
