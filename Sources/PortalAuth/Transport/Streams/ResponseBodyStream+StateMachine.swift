extension ResponseBodyStream {
    /// The state of a streamed response body, without locks or I/O: every event returns what the
    /// caller must do (take the bytes, pause or abort the transfer, resume or cancel it, wait).
    struct StateMachine {
        /// Where the body is.
        enum Phase: Equatable {
            /// Not taken over yet: the transport reads it whole.
            case unclaimed
            /// Taken over; the transfer pushes pieces.
            case flowing
            /// The buffer was full: the transfer is paused until the reader takes half.
            case paused
            /// The transfer ended (whole or not); what is buffered is still read.
            case ended(failed: Bool)
            /// The reader stopped (its client went away or stalled): nothing more is kept.
            case aborted(afterCommit: Bool)
        }

        /// What the transport does with a piece it offers.
        enum Push: Equatable { case taken, pause, abort }

        /// What the reader does next.
        enum Next: Equatable {
            /// Nothing buffered and the transfer goes on: wait for an event.
            case wait
            /// Pass these bytes on; `resume` the paused transfer first when set.
            case deliver([UInt8], resume: Bool)
            /// The body ended whole.
            case end
            /// The body is incomplete.
            case failed
        }

        /// What ending the stream from the reader's side asks of the transfer.
        enum Abort: Equatable { case cancelTransfer, none }

        let capacity: Int
        private(set) var phase = Phase.unclaimed
        private var pieces: [[UInt8]] = []
        private var head = 0
        /// How many bytes wait for the reader.
        private(set) var buffered = 0

        init(capacity: Int) { self.capacity = max(1, capacity) }

        /// Whether the body was taken over (the response's own body is empty).
        var isCommitted: Bool {
            switch phase {
            case .unclaimed, .aborted(afterCommit: false): false
            case .flowing, .paused, .ended, .aborted(afterCommit: true): true
            }
        }

        /// The transport takes the body over, with what it read before; false: already aborted.
        mutating func commit(prefix: [UInt8]) -> Bool {
            switch phase {
            case .unclaimed:
                phase = .flowing
                append(prefix)
                return true
            case .aborted: phase = .aborted(afterCommit: true)
            case .flowing, .paused, .ended: break
            }
            return false
        }

        /// The transfer offers a piece of `count` bytes: `taken` (call ``take(_:)`` with them),
        /// pause (offer them again once resumed), or abort.
        mutating func push(count: Int) -> Push {
            switch phase {
            case .aborted, .ended, .unclaimed: return .abort
            case .paused: return .pause
            case .flowing:
                if buffered >= capacity {
                    phase = .paused
                    return .pause
                }
                return .taken
            }
        }

        /// Keeps a piece that ``push(count:)`` took.
        mutating func take(_ bytes: [UInt8]) {
            guard phase == .flowing else { return }
            append(bytes)
        }

        /// The transfer ended; `failed`: the body is incomplete.
        mutating func finish(failed: Bool) {
            switch phase {
            case .flowing, .paused: phase = .ended(failed: failed)
            case .ended(let before): phase = .ended(failed: before || failed)
            case .aborted, .unclaimed: break
            }
        }

        /// What the reader gets now.
        mutating func next() -> Next {
            switch phase {
            case .aborted: return .failed
            case .unclaimed: return .wait
            case .flowing, .paused, .ended: break
            }
            guard head < pieces.count else {
                if case .ended(let failed) = phase { return failed ? .failed : .end }
                return .wait
            }
            let bytes = pieces[head]
            pieces[head] = []
            head += 1
            if head == pieces.count {
                pieces.removeAll(keepingCapacity: true)
                head = 0
            }
            buffered -= bytes.count
            if phase == .paused, buffered <= capacity / 2 {
                phase = .flowing
                return .deliver(bytes, resume: true)
            }
            return .deliver(bytes, resume: false)
        }

        /// Whether ``next()`` would not answer `wait`.
        var hasNext: Bool {
            switch phase {
            case .aborted, .ended: true
            case .unclaimed: false
            case .flowing, .paused: head < pieces.count
            }
        }

        /// The reader stops (its client went away, or nothing came for too long): the buffer goes,
        /// and a transfer still running is cancelled.
        mutating func abort() -> Abort {
            pieces.removeAll()
            head = 0
            buffered = 0
            switch phase {
            case .unclaimed:
                phase = .aborted(afterCommit: false)
                return .none
            case .flowing, .paused:
                phase = .aborted(afterCommit: true)
                return .cancelTransfer
            case .ended:
                phase = .aborted(afterCommit: true)
                return .none
            case .aborted: return .none
            }
        }

        private mutating func append(_ bytes: [UInt8]) {
            guard !bytes.isEmpty else { return }
            pieces.append(bytes)
            buffered += bytes.count
        }
    }
}
