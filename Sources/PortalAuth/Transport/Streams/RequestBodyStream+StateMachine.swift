extension RequestBodyStream {
    /// The state of a streamed request body, without locks or I/O: the pump (reading the client)
    /// and the transport's upload (taking what was read) report events, and each returns what the
    /// caller must do.
    struct StateMachine {
        /// Where the body is.
        enum Phase: Equatable {
            /// No transfer took it yet.
            case unclaimed
            /// A transfer took it; the pump reads the client. `uploadWaits`: the upload found
            /// nothing and paused, to be resumed when more arrives.
            case pumping(uploadWaits: Bool)
            /// The client sent all of it (`failed`: it stopped early); the pump has stopped.
            case ended(failed: Bool)
            /// Stopped before its end (the answer went out, or the transfer ended): the pump stops.
            case aborted(pumpRunning: Bool)
            /// Stopped before a transfer took it.
            case stoppedUnclaimed
        }

        /// What a transfer that claims the body does.
        enum Claim: Equatable {
            /// It is the first: start the pump.
            case startPump
            /// The body was stopped before: the upload will abort.
            case stopped
            /// Another transfer took it: it cannot be sent again.
            case alreadyClaimed
        }

        /// What the upload's read gets.
        enum Read: Equatable { case bytes(Int), pause, end, abort }

        /// What the pump does after adding what it read.
        enum Add: Equatable {
            /// Read on; `resume` the paused upload first when set.
            case readOn(resume: Bool)
            /// The buffer is full: wait for the upload to take some; `resume` the paused upload
            /// first when set.
            case waitForRoom(resume: Bool)
            /// Stop reading the client.
            case stop
        }

        let capacity: Int
        private(set) var phase = Phase.unclaimed
        private(set) var pending: [UInt8] = []
        private var offset = 0

        init(capacity: Int) { self.capacity = max(1, capacity) }

        /// Whether a transfer took the body.
        var isClaimed: Bool { phase != .unclaimed && phase != .stoppedUnclaimed }

        /// Whether the whole body arrived.
        var isComplete: Bool { phase == .ended(failed: false) }

        /// Whether the pump still reads the client.
        var isPumping: Bool {
            switch phase {
            case .pumping, .aborted(pumpRunning: true): true
            case .unclaimed, .ended, .aborted(pumpRunning: false), .stoppedUnclaimed: false
            }
        }

        /// Whether the pump is to read on (not stopped, not ended).
        var readsOn: Bool {
            if case .pumping = phase { true } else { false }
        }

        /// A transfer takes the body.
        mutating func claim() -> Claim {
            switch phase {
            case .unclaimed:
                phase = .pumping(uploadWaits: false)
                return .startPump
            case .stoppedUnclaimed:
                phase = .aborted(pumpRunning: false)
                return .stopped
            case .pumping, .ended, .aborted: return .alreadyClaimed
            }
        }

        /// The pump adds what it read; `ended`: the client's body is over (`failed`: early).
        mutating func add(_ bytes: [UInt8], ended: Bool = false, failed: Bool = false) -> Add {
            guard case .pumping(let uploadWaits) = phase else { return .stop }
            pending += bytes
            if ended {
                // (The upload, paused, is resumed to see the end.)
                phase = .ended(failed: failed)
                return .readOn(resume: uploadWaits)
            }
            let resume = uploadWaits && pending.count > offset
            if resume { phase = .pumping(uploadWaits: false) }
            return roomAction(resume: resume)
        }

        /// Whether the pump may read on (after ``add(_:ended:failed:)`` said to wait for room).
        func room() -> Add {
            guard case .pumping = phase else { return .stop }
            return roomAction(resume: false)
        }

        private func roomAction(resume: Bool) -> Add {
            pending.count - offset >= capacity ? .waitForRoom(resume: resume) : .readOn(resume: resume)
        }

        /// The upload reads up to `count` bytes: the range of ``pending`` to copy (then call
        /// ``consumed(_:)``), or pause, end, abort.
        mutating func read(count: Int) -> (Read, Range<Int>) {
            let available = pending.count - offset
            switch phase {
            case .aborted, .ended(failed: true), .unclaimed, .stoppedUnclaimed: return (.abort, 0..<0)
            case .ended where available == 0: return (.end, 0..<0)
            case .pumping where available == 0:
                phase = .pumping(uploadWaits: true)
                return (.pause, 0..<0)
            case .pumping, .ended:
                let taken = min(available, count)
                return (.bytes(taken), offset..<(offset + taken))
            }
        }

        /// The upload copied `count` bytes of what ``read(count:)`` offered.
        mutating func consumed(_ count: Int) {
            offset += count
            if offset == pending.count {
                pending.removeAll(keepingCapacity: true)
                offset = 0
            } else if offset >= capacity {
                // What was sent goes (once per `capacity` bytes: linear), so the buffer stays bounded.
                pending.removeFirst(offset)
                offset = 0
            }
        }

        /// Stops the pump (the answer went out, or the transfer ended); whether the transfer, if
        /// one runs, is to be cancelled because the body did not end.
        mutating func stop() -> Bool {
            switch phase {
            case .unclaimed:
                phase = .stoppedUnclaimed
                return false
            case .pumping:
                phase = .aborted(pumpRunning: true)
                return true
            case .ended, .aborted, .stoppedUnclaimed: return false
            }
        }

        /// The pump returned.
        mutating func pumpStopped() {
            if phase == .aborted(pumpRunning: true) { phase = .aborted(pumpRunning: false) }
            if case .pumping = phase { phase = .ended(failed: true) }
        }
    }
}
