import Testing

@testable import PortalAuth
@testable import PortalAuthServe

/// The bounded buffer between the transport and a local proxy's client (``ResponseBodyStream``),
/// and how the local server frames answers without a body, without a socket or a transfer.
@Suite struct ResponseBodyStreamTests {
    private func push(_ stream: ResponseBodyStream, _ bytes: [UInt8]) -> ResponseBodyStream.Push {
        bytes.withUnsafeBytes { stream.push($0) }
    }

    @Test func onlyASuccessWithABodyIsStreamed() {
        #expect(ResponseBodyStream.streams(status: 200) && ResponseBodyStream.streams(status: 206))
        for status in [204, 205, 301, 302, 304, 400, 401, 403, 404, 498, 499, 500] {
            #expect(!ResponseBodyStream.streams(status: status), "\(status)")
        }
    }

    @Test func theTransferPausesWhenTheBufferIsFullAndResumesOnceHalfIsRead() {
        let stream = ResponseBodyStream(streamAfter: 4, capacity: 8)
        let resumed = Locked(0)
        let taken = stream.commit(prefix: [1, 2, 3, 4, 5], resume: { resumed.withLock { $0 += 1 } }, cancel: {})
        #expect(taken)
        #expect(stream.isCommitted)
        #expect(push(stream, [6, 7, 8]) == .taken)
        // 8 bytes wait: the next piece is refused until the reader takes some.
        #expect(push(stream, [9]) == .pause)
        #expect(stream.next() == .bytes([1, 2, 3, 4, 5]))
        #expect(resumed.withLock { $0 } == 1)
        #expect(push(stream, [9]) == .taken)
        stream.finish(failed: false)
        #expect(stream.next() == .bytes([6, 7, 8]))
        #expect(stream.next() == .bytes([9]))
        #expect(stream.next() == .end)
    }

    @Test func aFailedTransferEndsTheBodyAsIncomplete() {
        let stream = ResponseBodyStream(streamAfter: 1, capacity: 8)
        let taken = stream.commit(prefix: [1], resume: {}, cancel: {})
        #expect(taken)
        stream.finish(failed: true)
        #expect(stream.next() == .bytes([1]))
        #expect(stream.next() == .failed)
    }

    @Test func theReaderAbortingCancelsTheTransferAndDropsWhatWaits() {
        let stream = ResponseBodyStream(streamAfter: 1, capacity: 8)
        let cancelled = Locked(0)
        let taken = stream.commit(prefix: [1, 2], resume: {}, cancel: { cancelled.withLock { $0 += 1 } })
        #expect(taken)
        stream.abort()
        #expect(cancelled.withLock { $0 } == 1)
        #expect(push(stream, [3]) == .abort)
        #expect(stream.next() == .failed)
        // Aborted before the transport takes the body over: the transfer is ended at once.
        let early = ResponseBodyStream()
        early.abort()
        let late = early.commit(prefix: [], resume: {}, cancel: {})
        #expect(!late)
    }

    @Test func answersWithoutABodyCarryNoLengthAndAHeadAnswerNoBody() {
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        for status in [204, 304] {
            let head = text(LoopbackHTTPServer.serialize(.init(status: status, body: [0x41])))
            #expect(!head.contains("Content-Length") && !head.hasSuffix("A"), "\(head)")
        }
        let head = text(LoopbackHTTPServer.serialize(.text(405, "no"), includeBody: false))
        #expect(head.contains("Content-Length: 3\r\n") && head.hasSuffix("\r\n\r\n"), "\(head)")
    }
}
