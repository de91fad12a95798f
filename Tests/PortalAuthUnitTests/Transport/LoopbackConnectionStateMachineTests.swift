import Testing

@testable import PortalAuth

/// The local server's connection, read without a socket or a clock: bytes, a close or the time
/// in; what the server's loop does out (read on, close, answer and close, hand the request over).
@Suite struct LoopbackConnectionStateMachineTests {
    typealias Connection = LoopbackHTTPServer.Connection
    typealias Response = LoopbackHTTPServer.Response

    let start = ContinuousClock.now
    let limits = LoopbackHTTPRequest.Limits(headBytes: 64, bodyBytes: 8, streamedBodyBytes: 100)

    func connection(kept: Bool = false) -> Connection {
        Connection(fd: -1, since: start, deadline: start + .seconds(30), kept: kept)
    }

    func bytes(_ text: String) -> ArraySlice<UInt8> { ArraySlice(Array(text.utf8)) }

    /// The status of an answer-and-close, or nil for any other action.
    func status(_ action: Connection.Action) -> Int? {
        if case .answerAndClose(let response) = action { return response.status }
        return nil
    }

    func request(_ action: Connection.Action) -> LoopbackHTTPRequest? {
        if case .answer(let request) = action { return request }
        return nil
    }

    func isRead(_ action: Connection.Action) -> Bool {
        if case .read = action { return true }
        return false
    }

    @Test func aRequestSplitAcrossReadsIsHandedOverOnceWhole() {
        var machine = connection()
        let parts = ["POST /x HT", "TP/1.1\r\nHost: a\r", "\nContent-Length: 4\r\n\r\nab", "cd"]
        for part in parts.dropLast() {
            #expect(isRead(machine.receive(bytes(part), at: start, limits: limits, headFilter: nil)))
        }
        #expect(machine.reading.headComplete)
        let whole = request(machine.receive(bytes(parts.last!), at: start, limits: limits, headFilter: nil))
        #expect(whole?.method == "POST" && whole?.target == "/x" && whole?.body == Array("abcd".utf8))
        #expect(whole?.keepsAlive == true)
    }

    @Test func refusalsAnswerAndClose() {
        var long = connection()
        #expect(
            status(long.receive(bytes(String(repeating: "a", count: 65)), at: start, limits: limits, headFilter: nil))
                == 431)
        var extra = connection()
        let tooMuch = "POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nab"
        #expect(status(extra.receive(bytes(tooMuch), at: start, limits: limits, headFilter: nil)) == 400)
        var malformed = connection()
        #expect(
            status(malformed.receive(bytes("GET\r\n\r\n"), at: start, limits: limits, headFilter: nil))
                == 400)
    }

    @Test func aHeadFilterRefusesBeforeTheBodyIsRead() {
        var machine = connection()
        let filter: LoopbackHTTPServer.HeadFilter = { head in
            #expect(head.body.isEmpty)
            return head.target == "/forbidden" ? .text(403, "no") : nil
        }
        let action = machine.receive(
            bytes("POST /forbidden HTTP/1.1\r\nContent-Length: 5\r\n\r\n"), at: start, limits: limits,
            headFilter: filter)
        #expect(status(action) == 403)
    }

    @Test func aHeadFilterRefusesARequestWhoseBodyWouldStream() {
        var machine = connection()
        let filter: LoopbackHTTPServer.HeadFilter = { $0.target == "/forbidden" ? .text(403, "no") : nil }
        let action = machine.receive(
            bytes("PUT /forbidden HTTP/1.1\r\nContent-Length: 50\r\n\r\n0123"), at: start, limits: limits,
            headFilter: filter)
        #expect(status(action) == 403)
    }

    @Test func aLongBodyIsHandedOverAsAStream() {
        var machine = connection()
        let action = machine.receive(
            bytes("PUT /up HTTP/1.1\r\nContent-Length: 50\r\n\r\n0123"), at: start, limits: limits, headFilter: nil)
        guard case .answerStreaming(let request, let received, let length) = action else {
            Issue.record("not streamed: \(action)")
            return
        }
        #expect(request.target == "/up" && request.body.isEmpty && !request.keepsAlive)
        #expect(received == Array("0123".utf8) && length == 50)
    }

    @Test func theDeadlineEndsARequestHoweverItsBytesTrickleIn() {
        var machine = connection()
        let late = start + .seconds(31)
        #expect(isRead(machine.waited(now: start + .seconds(29))))
        #expect(
            isRead(
                machine.receive(bytes("GET / HTTP/1.1\r\n"), at: start + .seconds(29), limits: limits, headFilter: nil)
            ))
        // A byte more, past the deadline: too late, though bytes still come.
        #expect(status(machine.receive(bytes("H"), at: late, limits: limits, headFilter: nil)) == 408)
        #expect(status(machine.waited(now: late)) == 408)
        // A connection kept open that sent nothing is closed without a word.
        let idle = connection(kept: true)
        #expect(idle.reading.idle)
        guard case .close = idle.waited(now: late) else {
            Issue.record("an idle kept connection is answered")
            return
        }
    }

    @Test func aConnectionIsKeptOnlyAfterAWholeAnswerToAKeepAliveRequestWithoutAStreamedBody() {
        let keepAlive = LoopbackHTTPRequest(method: "GET", target: "/", headers: [], body: [], keepsAlive: true)
        let close = LoopbackHTTPRequest(method: "GET", target: "/", headers: [], body: [], keepsAlive: false)
        var streamed = keepAlive
        streamed.bodyStream = RequestBodyStream(fd: -1, received: [], length: 0, idleSeconds: 1)
        #expect(Connection.keptAfterAnswer(keepAlive, written: true))
        #expect(!Connection.keptAfterAnswer(keepAlive, written: false))
        #expect(!Connection.keptAfterAnswer(close, written: true))
        #expect(!Connection.keptAfterAnswer(streamed, written: true))
    }
}
