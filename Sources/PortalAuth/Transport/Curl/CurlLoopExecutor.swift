/// The thread of a ``CurlTransport``'s event loop as a task executor
/// (``CurlTransport/taskExecutor``): its jobs run between the loop's turns, so a task that mostly
/// sends requests through the transport is not handed from thread to thread around each one.
final class CurlLoopExecutor: TaskExecutor, @unchecked Sendable {
    private struct State {
        var queued: [UnownedJob] = []
        /// Set once the loop has stopped: jobs go to the global executor from then on.
        var closed = false
    }
    private let state = Locked(State())
    /// Wakes the loop (called under the state lock, only while it runs).
    private let wake: @Sendable () -> Void
    /// Whether the calling thread is the loop's (no wake-up needed: it runs the job next turn).
    private let isLoopThread: @Sendable () -> Bool
    /// Has the loop poll a poller's descriptors; false when it has stopped.
    private let hostPoller: @Sendable (any CurlLoopPoller) -> Bool

    init(
        wake: @escaping @Sendable () -> Void, isLoopThread: @escaping @Sendable () -> Bool,
        host: @escaping @Sendable (any CurlLoopPoller) -> Bool
    ) {
        self.wake = wake
        self.isLoopThread = isLoopThread
        self.hostPoller = host
    }

    /// Has the loop poll `poller`'s descriptors with libcurl's, on its thread, from its next turn
    /// until the poller is done or the loop ends; false (and nothing done) when the loop has stopped.
    func host(_ poller: any CurlLoopPoller) -> Bool { hostPoller(poller) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let onLoop = isLoopThread()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.queued.append(job)
            if !onLoop { wake() }
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(job) }
    }

    /// Whether jobs wait to be run.
    var hasQueued: Bool { state.withLock { !$0.queued.isEmpty } }

    /// Runs the jobs queued so far (on the loop's thread); whether there were any.
    @discardableResult
    func runQueued() -> Bool {
        let jobs = state.withLock { state in
            defer { state.queued.removeAll(keepingCapacity: true) }
            return state.queued
        }
        for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        return !jobs.isEmpty
    }

    /// The loop has stopped: the queued jobs, and every later one, run on the global executor.
    func close() {
        let jobs = state.withLock { state in
            state.closed = true
            defer { state.queued.removeAll() }
            return state.queued
        }
        for job in jobs { globalConcurrentExecutor.enqueue(job) }
    }
}
