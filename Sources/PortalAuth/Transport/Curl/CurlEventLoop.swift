internal import CPortalAuth
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The multi handle and the thread that drives it.
final class CurlEventLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private struct State {
        var pending: [CurlJob] = []
        var cancelled: [CurlJob] = []
        var resumed: [CurlJob] = []  // paused streams whose reader has room again
        var active: [UnsafeMutableRawPointer: CurlJob] = [:]  // easy handle → job
        var pool: [OpaquePointer] = []  // idle transfers
        var pollers: [any CurlLoopPoller] = []  // descriptors polled with libcurl's
        var running = true
    }
    private let state = Locked(State())
    private var thread = pthread_t()
    /// Set by the first ``shutdown()``; the thread is joined once.
    private let ended = Atomic<Bool>(false)
    /// Every loop whose thread has not been joined, for ``shutdownAll()``.
    private static let live = Locked<[ObjectIdentifier: CurlEventLoop]>([:])
    /// The loop's thread as a task executor (``CurlTransport/taskExecutor``).
    private(set) var executor: CurlLoopExecutor!
    /// The loop thread's `pthread_self()` once it runs (0 before).
    private let loopThread = Atomic<UInt>(0)

    /// The name of the loop's thread (at most 15 bytes).
    static let threadName = "portal-auth-io"

    /// Whether the calling thread is the loop's.
    var isOnLoopThread: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    init(maxConnectionsPerHost: Int) throws {
        guard let multi = pa_multi_init() else {
            throw PortalAuthError(.internalError, "libcurl could not create a multi handle")
        }
        self.multi = multi
        _ = pa_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        _ = pa_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, maxConnectionsPerHost * 4))
        let multiAddress = UInt(bitPattern: multi)
        executor = CurlLoopExecutor(
            wake: { _ = pa_multi_wakeup(UnsafeMutableRawPointer(bitPattern: multiAddress)) },
            isLoopThread: { [weak self] in self?.isOnLoopThread ?? false },
            host: { [weak self] poller in self?.host(poller) ?? false })
        let unmanaged = Unmanaged.passRetained(self)
        let result = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<CurlEventLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, unmanaged.toOpaque())
        guard result == 0 else {
            unmanaged.release()
            throw PortalAuthError(.internalError, "cannot start the HTTP event-loop thread (\(result))")
        }
        // Joinable, not detached: a detached thread could still be closing TLS connections
        // (curl_multi_cleanup) while the process exits and OpenSSL frees what it uses.
        Self.live.withLock { $0[ObjectIdentifier(self)] = self }
    }

    /// Stops the thread and joins it (once): when this returns, the multi handle is cleaned up
    /// and no libcurl call of this loop is running.
    func shutdown() {
        // (From a task on the loop's own thread, which can let go of its transport: stopped only,
        // and left joinable and live, so that ``shutdownAll()`` still joins it before libcurl ends.)
        if isOnLoopThread { return stop() }
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stop()
        pthread_join(thread, nil)
        _ = Self.live.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// ``shutdown()`` for every loop of the process.
    static func shutdownAll() {
        for loop in live.withLock({ Array($0.values) }) { loop.shutdown() }
    }

    func takeTransfer() -> OpaquePointer? {
        if let pooled = state.withLock({ $0.pool.popLast() }) {
            pa_transfer_reset(pooled)
            return pooled
        }
        return pa_transfer_new()
    }

    func returnTransfer(_ transfer: OpaquePointer) {
        pa_transfer_wipe(transfer)
        let keep = state.withLock { state -> Bool in
            guard state.running, state.pool.count < 64 else { return false }
            state.pool.append(transfer)
            return true
        }
        if !keep { pa_transfer_free(transfer) }
    }

    // Wake-ups happen under the lock and only while the loop runs: once it has seen `running`
    // false it frees the multi handle, and a wake-up after that would use freed memory.

    func submit(_ job: CurlJob) {
        if job.stream != nil || job.upload != nil { job.loop = self }
        let onLoop = isOnLoopThread
        let accepted = state.withLock { state -> Bool in
            guard state.running else { return false }
            state.pending.append(job)
            // (Submitted by a task running on the loop's thread: the loop starts it before it polls.)
            if !onLoop { _ = pa_multi_wakeup(multi) }
            return true
        }
        // A loop that has stopped would never answer: the request fails at once instead.
        guard accepted else { return finish(job, cancelled: true) }
    }

    func cancel(_ job: CurlJob) {
        job.cancelled.store(true, ordering: .relaxed)
        state.withLock { state in
            state.cancelled.append(job)
            if state.running { _ = pa_multi_wakeup(multi) }
        }
    }

    /// Continues a streamed transfer that its reader paused (the reader has room again).
    func resume(_ job: CurlJob) {
        state.withLock { state in
            guard state.running else { return }
            state.resumed.append(job)
            _ = pa_multi_wakeup(multi)
        }
    }

    /// Polls `poller`'s descriptors from the next turn on (``CurlLoopPoller``); false when stopped.
    func host(_ poller: any CurlLoopPoller) -> Bool {
        let onLoop = isOnLoopThread
        return state.withLock { state in
            guard state.running else { return false }
            state.pollers.append(poller)
            if !onLoop { _ = pa_multi_wakeup(multi) }
            return true
        }
    }

    func stop() {
        state.withLock { state in
            guard state.running else { return }
            state.running = false
            _ = pa_multi_wakeup(multi)
        }
    }

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        // (Named for what runs on it: `top -H`, perf and a test tell it apart.)
        pa_name_current_thread(Self.threadName)
        var running: Int32 = 0
        while true {
            // The tasks that run here (``executor``), first: they may submit transfers.
            executor.runQueued()
            let (pending, cancelled, resumed, keepRunning) = state.withLock { state in
                defer { state.pending.removeAll(); state.cancelled.removeAll(); state.resumed.removeAll() }
                return (state.pending, state.cancelled, state.resumed, state.running)
            }
            if !keepRunning { break }
            for job in resumed {
                let easy = pa_transfer_easy(job.transfer)!
                if state.withLock({ $0.active[easy] === job }) { _ = pa_easy_unpause(easy) }
            }
            for job in pending { startTransfer(of: job) }
            for job in cancelled { stopTransfer(of: job) }
            // libcurl's Negotiate runs GSS-API on this thread: give it a ticket obtained with a password.
            KerberosTicket.applyToCurrentThread()
            _ = pa_multi_perform(multi, &running)
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while pa_multi_next_done(multi, &easy, &result) == 1, let done = easy {
                guard let job = state.withLock({ $0.active.removeValue(forKey: done) }) else { continue }
                _ = pa_multi_remove(multi, done)
                finish(job, outcome: collect(job, code: result))
            }
            // (A task resumed above runs next turn, without waiting in poll.)
            if executor.hasQueued || state.withLock({ !$0.pending.isEmpty }) {
                // (The pollers are still read, without waiting: a busy loop does not leave them unread.)
                if state.withLock({ !$0.pollers.isEmpty }) { pollTurn(maxWait: 0) }
                continue
            }
            pollTurn(maxWait: 1000)
        }
        stopTransfers()
    }

    /// Waits for libcurl's sockets, the wake-up and every poller's descriptors (up to `maxWait`
    /// milliseconds, or the shortest wait a poller asks), then hands each poller what was found.
    /// (libcurl reports back only `POLLIN`, `POLLOUT` and `POLLPRI`, with the values poll(2) gives
    /// them; a hang-up or an error comes back as `POLLIN`.)
    private func pollTurn(maxWait: Int32) {
        let pollers = state.withLock { $0.pollers }
        guard !pollers.isEmpty else {
            _ = pa_multi_poll(multi, maxWait)
            return
        }
        var turns: [(poller: any CurlLoopPoller, descriptors: [pollfd], start: Int)] = []
        var waits: [curl_waitfd] = []
        var timeout = maxWait
        var done: [ObjectIdentifier] = []
        for poller in pollers {
            guard let (descriptors, wait) = poller.prepareTurn() else {
                done.append(ObjectIdentifier(poller))
                continue
            }
            turns.append((poller, descriptors, waits.count))
            waits += descriptors.map { curl_waitfd(fd: $0.fd, events: $0.events, revents: 0) }
            timeout = min(timeout, wait)
        }
        if !done.isEmpty { state.withLock { $0.pollers.removeAll { done.contains(ObjectIdentifier($0)) } } }
        _ = waits.withUnsafeMutableBufferPointer { pa_multi_poll_fds(multi, $0.baseAddress, UInt32($0.count), timeout) }
        for turn in turns {
            var polled = turn.descriptors
            for index in polled.indices { polled[index].revents = waits[turn.start + index].revents }
            turn.poller.finishTurn(polled)
        }
    }

    /// Starts a submitted job's transfer (on the loop's thread), unless it was cancelled meanwhile.
    private func startTransfer(of job: CurlJob) {
        if job.cancelled.load(ordering: .relaxed) {
            finish(job, cancelled: true)
            return
        }
        let easy = pa_transfer_easy(job.transfer)!
        state.withLock { $0.active[easy] = job }
        if pa_multi_add(multi, easy) != CURLM_OK {
            state.withLock { _ = $0.active.removeValue(forKey: easy) }
            finish(
                job,
                outcome: CurlOutcome(
                    code: CURLE_FAILED_INIT.number, status: 0, headerBlock: "", body: [],
                    errorText: "could not add the transfer", effectiveURL: nil))
        }
    }

    /// Stops a cancelled job's transfer (on the loop's thread).
    private func stopTransfer(of job: CurlJob) {
        let easy = pa_transfer_easy(job.transfer)!
        // (Only this job: its transfer may already serve another, when a stream's reader ends
        // a transfer that has just finished.)
        let removed = state.withLock { state -> Bool in
            guard state.active[easy] === job else { return false }
            state.active.removeValue(forKey: easy)
            return true
        }
        if removed {
            _ = pa_multi_remove(multi, easy)
            finish(job, cancelled: true)
        }
    }

    /// Stopped: fails whatever is left and frees the transfers and the multi handle.
    private func stopTransfers() {
        let leftovers = state.withLock { state -> [CurlJob] in
            defer { state.active.removeAll(); state.pending.removeAll() }
            return Array(state.active.values) + state.pending
        }
        for job in leftovers {
            _ = pa_multi_remove(multi, pa_transfer_easy(job.transfer))
            finish(job, cancelled: true)
        }
        for transfer in state.withLock({ $0.pool }) { pa_transfer_free(transfer) }
        for poller in state.withLock({ state in
            defer { state.pollers.removeAll() }
            return state.pollers
        }) { poller.loopEnded() }
        // (Before the multi handle goes: the executor wakes it no more.)
        executor.close()
        _ = pa_multi_cleanup(multi)
    }

    private func collect(_ job: CurlJob, code: CURLcode) -> CurlOutcome {
        let easy = pa_transfer_easy(job.transfer)
        var status = 0
        _ = pa_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        let exceeded = TransferLimits.Exceeded(pa_transfer_limit_hit(job.transfer))
        var length = 0
        let bodyPointer = exceeded == nil ? pa_transfer_body(job.transfer, &length) : nil
        let body = bodyPointer.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
        var headLength = 0
        let headPointer = pa_transfer_headers(job.transfer, &headLength)
        let head =
            headPointer.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: headLength), as: UTF8.self) }
            ?? ""
        var text = String(cString: pa_transfer_error(job.transfer))
        if text.isEmpty, code != CURLE_OK { text = String(cString: pa_easy_strerror(code)) }
        var osErrno = 0
        if code != CURLE_OK { _ = pa_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno) }
        return CurlOutcome(
            code: code.number, status: status, headerBlock: head, body: body, errorText: text, osErrno: osErrno,
            effectiveURL: nil, exceeded: exceeded)
    }

    private func finish(_ job: CurlJob, outcome: CurlOutcome) {
        job.upload?.stop(waiting: false)
        if job.streaming { job.stream?.finish(failed: outcome.code != 0 || outcome.exceeded != nil) }
        job.loop = nil
        let continuation = job.continuation
        job.continuation = nil
        returnTransfer(job.transfer)
        continuation?.resume(returning: outcome)
    }

    private func finish(_ job: CurlJob, cancelled: Bool) {
        job.upload?.stop(waiting: false)
        if job.streaming { job.stream?.finish(failed: true) }
        job.loop = nil
        let continuation = job.continuation
        job.continuation = nil
        returnTransfer(job.transfer)
        continuation?.resume(
            throwing: PortalAuthError(.cancelled, "the request to \(job.host):\(job.port) was cancelled"))
    }
}

extension CurlEventLoop {
    /// The write callback of a transfer with a ``ResponseBodyStream`` once its body is longer
    /// than the stream's threshold (on the loop thread, inside `curl_multi_perform`). The first
    /// piece decides: a success status takes the body over (the waiting task gets the status and
    /// headers now, and the body so far goes first into the stream); any other is read whole.
    static let streamPiece: pa_stream_fn = { context, data, count, first in
        let job = Unmanaged<CurlJob>.fromOpaque(context!).takeUnretainedValue()
        guard let stream = job.stream, let loop = job.loop else { return PA_STREAM_DECLINE }
        if first != 0 {
            var status = 0
            _ = pa_easy_getinfo_long(pa_transfer_easy(job.transfer), CURLINFO_RESPONSE_CODE, &status)
            guard ResponseBodyStream.streams(status: status) else { return PA_STREAM_DECLINE }
            var length = 0
            let prefix = pa_transfer_body(job.transfer, &length).map {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
            var headLength = 0
            let head =
                pa_transfer_headers(job.transfer, &headLength).map {
                    String(decoding: UnsafeRawBufferPointer(start: $0, count: headLength), as: UTF8.self)
                } ?? ""
            job.streaming = true
            let taken = stream.commit(
                prefix: prefix ?? [], resume: { [weak loop] in loop?.resume(job) },
                cancel: { [weak loop] in loop?.cancel(job) })
            let continuation = job.continuation
            job.continuation = nil
            continuation?.resume(
                returning: CurlOutcome(
                    code: 0, status: status, headerBlock: head, body: [], errorText: "", effectiveURL: nil))
            guard taken else { return 0 }
        }
        switch stream.push(UnsafeRawBufferPointer(start: data, count: count)) {
        case .taken: return count
        case .pause: return PA_WRITEFUNC_PAUSE
        case .abort: return 0
        }
    }

    /// The read callback of a transfer with a ``RequestBodyStream``: what the client has sent so far.
    static let uploadPiece: pa_upload_fn = { context, buffer, count in
        let job = Unmanaged<CurlJob>.fromOpaque(context!).takeUnretainedValue()
        guard let upload = job.upload else { return PA_READFUNC_ABORT }
        switch upload.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count)) {
        case .bytes(let taken): return taken
        case .pause: return PA_READFUNC_PAUSE
        case .end: return 0
        case .abort: return PA_READFUNC_ABORT
        }
    }
}
