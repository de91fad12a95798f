import Foundation
import Testing

@testable import PortalAuth

/// A waiter for a cross-process lock gives up only when the lock has not changed hands for the
/// whole time-out (#12: `logout --all` gave up after 60 s behind a queue of readers that each held
/// the keyring's lock briefly while a loaded Secret Service answered them).
@Suite struct LockPatienceTests {
    private typealias Stamp = CrossProcessLock.Stamp

    /// Whether the wait is over at `seconds` after `start`, the lock file stamped `stamp`.
    private func runsOut(
        _ patience: inout CrossProcessLock.Patience, _ stamp: Int?, at seconds: Int, from start: ContinuousClock.Instant
    ) -> Bool {
        patience.runsOut(stamp: stamp.map { Stamp(seconds: $0, nanoseconds: 0) }, now: start + .seconds(seconds))
    }

    @Test func aLockThatNeverChangesHandsRunsOutAtTheTimeOut() {
        let start = ContinuousClock.now
        var patience = CrossProcessLock.Patience(timeout: 60, now: start)
        #expect(!runsOut(&patience, 1, at: 0, from: start))
        #expect(!runsOut(&patience, 1, at: 59, from: start))
        #expect(runsOut(&patience, 1, at: 60, from: start))
    }

    @Test func aLockThatChangesHandsStartsTheTimeOutAgain() {
        let start = ContinuousClock.now
        var patience = CrossProcessLock.Patience(timeout: 60, now: start)
        #expect(!runsOut(&patience, 1, at: 0, from: start))
        // Holders come and go every 50 s: 250 s in all, and the waiter still waits.
        for step in 1...5 {
            #expect(!runsOut(&patience, 1 + step, at: 50 * step, from: start))
        }
        #expect(!runsOut(&patience, 6, at: 309, from: start))
        #expect(runsOut(&patience, 6, at: 310, from: start))
    }

    @Test func anUnreadableStampIsNoProgress() {
        let start = ContinuousClock.now
        var patience = CrossProcessLock.Patience(timeout: 1, now: start)
        #expect(!runsOut(&patience, 1, at: 0, from: start))
        #expect(runsOut(&patience, nil, at: 1, from: start))
        #expect(runsOut(&patience, 1, at: 2, from: start))
    }

    /// Taking and releasing the lock touch its file: that is what waiters see as progress.
    @Test func takingAndReleasingTheLockTouchTheFile() throws {
        let key = "patience \(UUID().uuidString)"
        let (fd, _) = try CrossProcessLock.openLockFile(for: key)
        defer { close(fd) }
        #expect(CrossProcessLock.setStamp(fd, seconds: 1))
        let taken = try CrossProcessLock.withBlockingLock(key, shared: true) { CrossProcessLock.stamp(fd) }
        #expect((taken?.seconds ?? 0) > 1)
        #expect(CrossProcessLock.setStamp(fd, seconds: 1))
        let inside = try CrossProcessLock.withBlockingLock(key) {
            _ = CrossProcessLock.setStamp(fd, seconds: 1)
            return CrossProcessLock.stamp(fd)
        }
        #expect(inside?.seconds == 1)
        #expect((CrossProcessLock.stamp(fd)?.seconds ?? 0) > 1)
    }
}
