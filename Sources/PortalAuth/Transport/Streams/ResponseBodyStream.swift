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

    /// The state machine and what it tells to call: the transfer's resume and cancel.
    private struct Guarded {
        var machine: StateMachine
        var resume: (@Sendable () -> Void)?
        var cancel: (@Sendable () -> Void)?
    }

    private let state: ConditionLocked<Guarded>

    /// A stream that takes over after `streamAfter` bytes and pauses the transfer with more than
    /// `capacity` bytes waiting.
    package init(streamAfter: Int = 256 << 10, capacity: Int = 1 << 20) {
        self.streamAfter = max(0, streamAfter)
        self.capacity = max(1, capacity)
        state = ConditionLocked(Guarded(machine: StateMachine(capacity: capacity)))
    }

    /// Whether the body is being streamed (the response's own body is empty).
    package var isCommitted: Bool { state.withLock { $0.machine.isCommitted } }

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
        state.withLock { state in
            guard state.machine.commit(prefix: prefix) else { return false }
            state.resume = resume
            state.cancel = cancel
            return true
        }
    }

    /// What the write callback answers for `bytes`: taken, pause (offer them again later), or
    /// abort.
    typealias Push = StateMachine.Push

    /// Adds `bytes` unless ``capacity`` bytes already wait (then the transfer pauses).
    func push(_ bytes: UnsafeRawBufferPointer) -> Push {
        state.withLock { state in
            let push = state.machine.push(count: bytes.count)
            if push == .taken { state.machine.take(Array(bytes)) }
            return push
        }
    }

    /// The transfer ended: whole (`failed` false) or not.
    func finish(failed: Bool) {
        state.withLock { state in
            state.machine.finish(failed: failed)
            state.resume = nil
            state.cancel = nil
        }
    }

    // MARK: The reader's side

    /// The next piece of the body, waiting for it at most `idle` (then the stream is aborted and
    /// the piece is `failed`: an upstream that sends nothing for that long, or a transfer that was
    /// never resumed, frees its reader).
    package func next(idle: Duration = .seconds(60)) -> Piece {
        let (piece, resume, cancel) = state.wait(until: { $0.machine.hasNext }, timeout: idle) {
            state, timedOut -> (Piece, (@Sendable () -> Void)?, (@Sendable () -> Void)?) in
            if timedOut {
                let cancel = state.machine.abort() == .cancelTransfer ? state.cancel : nil
                state.cancel = nil
                return (.failed, nil, cancel)
            }
            switch state.machine.next() {
            case .wait, .failed: return (.failed, nil, nil)
            case .end: return (.end, nil, nil)
            case .deliver(let bytes, let resume): return (.bytes(bytes), resume ? state.resume : nil, nil)
            }
        }
        cancel?()
        resume?()
        return piece
    }

    /// Ends the transfer: the reader will not read on (its client stopped reading or went away).
    package func abort() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.cancel = nil }
            return state.machine.abort() == .cancelTransfer ? state.cancel : nil
        }
        cancel?()
    }
}
