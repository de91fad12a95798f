extension LoopbackHTTPServer {
    /// One connection as the server's loop reads it, without I/O: the loop hands it what the
    /// socket gave (or that the socket closed, or that time passed) and does what it answers, in
    /// the way of async-http-client's `RequestBag+StateMachine`. It keeps what arrived so far, how
    /// far the head was looked for, and until when the rest may come; it bounds the head
    /// (``LoopbackHTTPRequest/Limits``), lets a head filter refuse a request before its body is
    /// read, and hands a body longer than what is read whole over as a stream.
    struct Connection {
        /// What the loop does next with the connection.
        enum Action {
            /// Keep reading it (until its deadline).
            case read
            /// Close it without a word (the client went away, or kept an idle connection past its time).
            case close
            /// Write this answer, then close it (a refused or timed-out request).
            case answerAndClose(Response)
            /// Hand this complete request to the handler; the connection is no longer read.
            case answer(LoopbackHTTPRequest)
            /// Hand this request to the handler with its body of `length` bytes still to come: the
            /// bytes of it that arrived with the head, the rest read from the socket as the handler
            /// takes it.
            case answerStreaming(LoopbackHTTPRequest, received: [UInt8], length: Int)
        }

        let fd: Int32
        /// When it was accepted, or kept open for a next request.
        let since: ContinuousClock.Instant
        /// Until when the whole request may arrive.
        let deadline: ContinuousClock.Instant
        /// Kept open by its client after an answer (not a new connection).
        let kept: Bool
        private(set) var received: [UInt8] = []
        private var scanned = 0
        private(set) var headEnd: Int?
        private var head: LoopbackHTTPRequest.Head?

        init(fd: Int32, since: ContinuousClock.Instant, deadline: ContinuousClock.Instant, kept: Bool = false) {
            self.fd = fd
            self.since = since
            self.deadline = deadline
            self.kept = kept
        }

        /// Its place in the decision of ``Admission``.
        var reading: Admission.Reading {
            Admission.Reading(idle: kept && received.isEmpty, headComplete: headEnd != nil, since: since)
        }

        /// The socket gave `bytes` (at least one) at `now`. A request still incomplete past the
        /// deadline is told it took too long, however its bytes trickle in.
        mutating func receive(
            _ bytes: ArraySlice<UInt8>, at now: ContinuousClock.Instant, limits: LoopbackHTTPRequest.Limits,
            headFilter: HeadFilter?
        ) -> Action {
            received.append(contentsOf: bytes)
            let action = taken(limits: limits, headFilter: headFilter)
            if case .read = action { return waited(now: now) }
            return action
        }

        /// What the bytes received so far come to.
        private mutating func taken(limits: LoopbackHTTPRequest.Limits, headFilter: HeadFilter?) -> Action {
            do {
                if headEnd == nil {
                    headEnd = LoopbackHTTPRequest.headEnd(received, from: scanned - 3)
                    scanned = received.count
                    guard let end = headEnd else {
                        return received.count > limits.headBytes ? Self.refusal(431, "request head too large") : .read
                    }
                    let head = try LoopbackHTTPRequest.parseHead(received[..<end], limits: limits)
                    self.head = head
                    let headOnly = LoopbackHTTPRequest(
                        method: head.method, target: head.target, headers: head.headers, body: [],
                        keepsAlive: head.keepsAlive)
                    if let refusal = headFilter?(headOnly) { return .answerAndClose(refusal) }
                    if head.contentLength > limits.bodyBytes { return streaming(head, end) }
                }
                guard let end = headEnd, let head else { return .read }
                let body = received.count - end
                if body > head.contentLength { return Self.refusal(400, "more bytes than Content-Length") }
                guard body == head.contentLength else { return .read }
                return .answer(
                    LoopbackHTTPRequest(
                        method: head.method, target: head.target, headers: head.headers,
                        body: Array(received[end...]), keepsAlive: head.keepsAlive, isHTTP11: head.isHTTP11))
            } catch {
                return .answerAndClose(.text(error.status, error.reason))
            }
        }

        /// The client closed its side, or the socket failed.
        func closed() -> Action { .close }

        /// Time passed with nothing read: past its deadline, a request begun is told it took too
        /// long, and a connection kept open that sent nothing more is closed without a word.
        func waited(now: ContinuousClock.Instant) -> Action {
            guard now >= deadline else { return .read }
            return received.isEmpty ? .close : Self.refusal(408, "request timeout")
        }

        /// Once its answer is written (`written`: whole): whether the connection is read again for
        /// its client's next request. Never after a streamed request body (it is read no further).
        static func keptAfterAnswer(_ request: LoopbackHTTPRequest, written: Bool) -> Bool {
            request.keepsAlive && written && request.bodyStream == nil
        }

        /// A request whose body is longer than what is read whole: handed over on its head (the
        /// connection is closed after the answer).
        private func streaming(_ head: LoopbackHTTPRequest.Head, _ end: Int) -> Action {
            let body = Array(received[end...])
            guard body.count <= head.contentLength else { return Self.refusal(400, "more bytes than Content-Length") }
            let request = LoopbackHTTPRequest(
                method: head.method, target: head.target, headers: head.headers, body: [], keepsAlive: false,
                isHTTP11: head.isHTTP11)
            return .answerStreaming(request, received: body, length: head.contentLength)
        }

        private static func refusal(_ status: Int, _ reason: String) -> Action {
            .answerAndClose(.text(status, reason))
        }
    }
}
