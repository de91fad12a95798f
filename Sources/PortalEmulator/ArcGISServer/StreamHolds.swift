import NIOConcurrencyHelpers

/// The streamed answers of ``StreamRoutes`` that a test holds part-way: each, by the name the
/// request gave, records how far it got, and waits at its hold point until the test releases it
/// (`POST /emulator/stream-release name=NAME`), so that a test sees the first bytes arrive
/// before the rest is even sent, with no clock involved.
final class StreamHolds: Sendable {
    /// What one named stream did.
    struct Progress: Sendable, Equatable {
        /// Bytes written so far.
        var sent = 0
        /// Waiting at its hold point.
        var held = false
        /// Released (by the test; a stream released before it reaches its hold point does not stop).
        var released = false
        /// Wrote its whole body.
        var done = false
        /// Its client went away before the end (a write failed).
        var aborted = false
    }

    private let state = NIOLockedValueBox<[String: Progress]>([:])
    private let waiters = NIOLockedValueBox<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// The progress of `name` (all zero before it starts).
    func progress(_ name: String) -> Progress { state.withLockedValue { $0[name] ?? Progress() } }

    /// Updates the progress of `name`.
    func update(_ name: String, _ change: (inout Progress) -> Void) {
        state.withLockedValue { change(&$0[name, default: Progress()]) }
    }

    /// Waits until `name` is released (at once when it already is), or the task is cancelled (the
    /// emulator shuts down: a test that failed before releasing it must not hang).
    func waitForRelease(_ name: String) async {
        await withTaskCancellationHandler {
            await wait(name)
        } onCancel: {
            release(name)
        }
    }

    private func wait(_ name: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLockedValue { all -> Bool in
                all[name, default: Progress()].held = true
                return all[name]?.released == true
            }
            if released { return continuation.resume() }
            waiters.withLockedValue { $0[name, default: []].append(continuation) }
            // Released between the two locks: resume what waits.
            if state.withLockedValue({ $0[name]?.released == true }) { resumeWaiters(name) }
        }
        update(name) { $0.held = false }
    }

    /// Releases `name`: a stream waiting at its hold point goes on.
    func release(_ name: String) {
        update(name) { $0.released = true }
        resumeWaiters(name)
    }

    private func resumeWaiters(_ name: String) {
        let waiting = waiters.withLockedValue { $0.removeValue(forKey: name) ?? [] }
        waiting.forEach { $0.resume() }
    }
}
