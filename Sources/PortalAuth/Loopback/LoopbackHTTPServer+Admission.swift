extension LoopbackHTTPServer {
    /// Whether the accept loop takes a new connection, without I/O: below the connection limit it
    /// accepts; at the limit it stops accepting (new connections wait in the kernel's queue, whose
    /// length is ``LoopbackHTTPServer/backlog``), and makes room only by closing a connection
    /// that holds a place without using it: one its client keeps open idle (HTTP keep-alive,
    /// which clients expect to be closed), else the oldest whose request head has not arrived
    /// after ``evictAfter`` (a slow or hostile client; a client that just connected is never cut).
    struct Admission {
        /// A connection being read, as the decision sees it.
        struct Reading: Equatable {
            /// Kept open by its client after an answer, and nothing of a next request sent.
            var idle: Bool
            /// Its request head arrived whole.
            var headComplete: Bool
            /// When it was accepted (or kept, for a connection kept open).
            var since: ContinuousClock.Instant
        }

        /// What the loop does.
        enum Action: Equatable {
            /// Accept a waiting connection (when one waits).
            case accept
            /// Close the connection being read at this index, then look again.
            case evict(Int)
            /// Accept nothing: new connections wait in the kernel's queue.
            case hold
        }

        let maximum: Int
        let evictAfter: Duration
        /// Connections handed to the handler and not yet answered.
        private(set) var answering = 0

        init(maximum: Int, evictAfter: Duration) {
            self.maximum = max(1, maximum)
            self.evictAfter = evictAfter
        }

        /// A request went to the handler.
        mutating func startAnswering() { answering += 1 }

        /// An answer went out (its connection is closed or comes back to be read).
        mutating func endAnswering() { answering = max(0, answering - 1) }

        /// What to do with `reading` connections open, `pending` telling whether a new connection
        /// waits, at `now`.
        func action(reading: [Reading], pending: Bool, now: ContinuousClock.Instant) -> Action {
            if reading.count + answering < maximum { return .accept }
            guard pending else { return .hold }
            if let index = reading.firstIndex(where: \.idle) { return .evict(index) }
            let stale = reading.indices.filter { !reading[$0].headComplete && now - reading[$0].since >= evictAfter }
            if let oldest = stale.min(by: { reading[$0].since < reading[$1].since }) { return .evict(oldest) }
            return .hold
        }
    }
}
