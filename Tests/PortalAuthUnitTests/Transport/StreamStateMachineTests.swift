import Testing

@testable import PortalAuth
@testable import PortalAuthServe

/// The state machines of the streams between a local client and a transfer, and of the local
/// server's admission of connections: events in, actions out, without a socket, a thread or a clock.
@Suite struct StreamStateMachineTests {
    typealias Response = ResponseBodyStream.StateMachine
    typealias Request = RequestBodyStream.StateMachine
    typealias Admission = LoopbackHTTPServer.Admission

    @Test func aResponseBodyPausesAtCapacityAndResumesOnceHalfIsRead() {
        var machine = Response(capacity: 8)
        #expect(!machine.isCommitted)
        #expect(machine.next() == .wait)
        let committed = machine.commit(prefix: [1, 2, 3, 4, 5])
        #expect(committed)
        #expect(machine.isCommitted && machine.phase == .flowing)
        #expect(machine.push(count: 3) == .taken)
        machine.take([6, 7, 8])
        #expect(machine.push(count: 1) == .pause)
        #expect(machine.phase == .paused)
        // Offered again while paused (libcurl's unpause): still paused until the reader takes half.
        #expect(machine.push(count: 1) == .pause)
        #expect(machine.next() == .deliver([1, 2, 3, 4, 5], resume: true))
        #expect(machine.phase == .flowing)
        #expect(machine.push(count: 1) == .taken)
        machine.take([9])
        machine.finish(failed: false)
        #expect(machine.next() == .deliver([6, 7, 8], resume: false))
        #expect(machine.next() == .deliver([9], resume: false))
        #expect(machine.next() == .end)
        #expect(machine.next() == .end)
    }

    @Test func aResponseBodyThatFailsOrIsAbortedEndsIncomplete() {
        var failed = Response(capacity: 8)
        _ = failed.commit(prefix: [1])
        failed.finish(failed: true)
        failed.finish(failed: false)
        #expect(failed.next() == .deliver([1], resume: false))
        #expect(failed.next() == .failed)

        var aborted = Response(capacity: 8)
        _ = aborted.commit(prefix: [1, 2])
        #expect(aborted.abort() == .cancelTransfer)
        #expect(aborted.buffered == 0)
        #expect(aborted.push(count: 1) == .abort)
        #expect(aborted.next() == .failed)
        #expect(aborted.abort() == .none)
        #expect(aborted.isCommitted)

        // Aborted before the transport takes the body over: the commit is refused.
        var early = Response(capacity: 8)
        #expect(early.abort() == .none)
        let late = early.commit(prefix: [1])
        #expect(!late)
        #expect(early.isCommitted)

        // Aborted after the transfer ended: nothing to cancel.
        var ended = Response(capacity: 8)
        _ = ended.commit(prefix: [])
        ended.finish(failed: false)
        #expect(ended.abort() == .none)
        #expect(ended.next() == .failed)
    }

    @Test func aResponseBodyReaderWaitsOnlyWhenNothingIsBufferedAndTheTransferRuns() {
        var machine = Response(capacity: 4)
        #expect(!machine.hasNext)
        _ = machine.commit(prefix: [])
        #expect(!machine.hasNext)
        #expect(machine.next() == .wait)
        #expect(machine.push(count: 2) == .taken)
        machine.take([1, 2])
        #expect(machine.hasNext)
        _ = machine.next()
        #expect(!machine.hasNext)
        machine.finish(failed: false)
        #expect(machine.hasNext)
    }

    @Test func aRequestBodyIsClaimedOnceAndPumpedWithinItsCapacity() {
        var machine = Request(capacity: 4)
        #expect(!machine.isClaimed)
        #expect(machine.read(count: 8).0 == .abort)
        #expect(machine.claim() == .startPump)
        #expect(machine.claim() == .alreadyClaimed)
        #expect(machine.isClaimed && machine.isPumping && machine.readsOn)
        // The upload finds nothing: it pauses, and the next bytes resume it.
        #expect(machine.read(count: 8).0 == .pause)
        #expect(machine.add([1, 2]) == .readOn(resume: true))
        #expect(machine.add([3, 4, 5]) == .waitForRoom(resume: false))
        #expect(machine.room() == .waitForRoom(resume: false))
        let (read, range) = machine.read(count: 3)
        #expect(read == .bytes(3) && Array(machine.pending[range]) == [1, 2, 3])
        machine.consumed(3)
        #expect(machine.room() == .readOn(resume: false))
        #expect(machine.add([6], ended: true) == .readOn(resume: false))
        #expect(machine.isComplete && !machine.isPumping)
        #expect(machine.read(count: 8).0 == .bytes(3))
        machine.consumed(3)
        #expect(machine.read(count: 8).0 == .end)
        let stopped = machine.stop()
        #expect(!stopped)
    }

    @Test func aRequestBodyStoppedEarlyStopsThePumpAndAbortsTheUpload() {
        var machine = Request(capacity: 4)
        _ = machine.claim()
        let stopped = machine.stop()
        #expect(stopped)
        #expect(machine.isPumping && !machine.readsOn)
        #expect(machine.add([1]) == .stop)
        #expect(machine.read(count: 4).0 == .abort)
        machine.pumpStopped()
        #expect(!machine.isPumping)

        // A client that stopped sending early: the body failed, the upload aborts.
        var short = Request(capacity: 4)
        _ = short.claim()
        _ = short.add([], ended: true, failed: true)
        #expect(!short.isComplete)
        #expect(short.read(count: 4).0 == .abort)

        // Stopped before a transfer took it: a transfer that claims it aborts its upload.
        var unclaimed = Request(capacity: 4)
        let stoppedEarly = unclaimed.stop()
        #expect(!stoppedEarly)
        #expect(unclaimed.claim() == .stopped)
        #expect(unclaimed.read(count: 4).0 == .abort)
        #expect(unclaimed.claim() == .alreadyClaimed)
    }

    @Test func theServerAcceptsBelowItsLimitAndQueuesAtIt() {
        let now = ContinuousClock.now
        var admission = Admission(maximum: 3, evictAfter: .seconds(10))
        let fresh = Admission.Reading(idle: false, headComplete: false, since: now)
        #expect(admission.action(reading: [fresh, fresh], pending: true, now: now) == .accept)
        admission.startAnswering()
        // At the limit, connections that just arrived keep their place: new ones wait in the queue.
        #expect(admission.action(reading: [fresh, fresh], pending: true, now: now) == .hold)
        #expect(admission.action(reading: [fresh, fresh], pending: false, now: now + .seconds(60)) == .hold)
        admission.endAnswering()
        admission.endAnswering()
        #expect(admission.answering == 0)
        #expect(admission.action(reading: [fresh, fresh], pending: true, now: now) == .accept)
    }

    @Test func atItsLimitTheServerClosesAnIdleConnectionElseTheOldestStaleHead() {
        let now = ContinuousClock.now
        let admission = Admission(maximum: 3, evictAfter: .seconds(10))
        let fresh = Admission.Reading(idle: false, headComplete: false, since: now)
        let old = Admission.Reading(idle: false, headComplete: false, since: now - .seconds(20))
        let older = Admission.Reading(idle: false, headComplete: false, since: now - .seconds(25))
        let idle = Admission.Reading(idle: true, headComplete: false, since: now)
        let answered = Admission.Reading(idle: false, headComplete: true, since: now - .seconds(30))
        #expect(admission.action(reading: [fresh, idle, old], pending: true, now: now) == .evict(1))
        #expect(admission.action(reading: [old, fresh, older], pending: true, now: now) == .evict(2))
        #expect(admission.action(reading: [answered, fresh, fresh], pending: true, now: now) == .hold)
        #expect(
            admission.action(reading: [answered, fresh, fresh], pending: true, now: now + .seconds(10)) == .evict(1))
    }
}
