#if canImport(Glibc)
import Glibc
#endif

/// Something whose own descriptors a transport's event loop polls together with libcurl's, on
/// its thread, so that what it reads is handled where its requests are sent (a local server
/// whose answers run on ``CurlTransport/taskExecutor()``: ``CurlLoopExecutor/host(_:)``). Its
/// methods are called on the loop's thread only, one turn at a time.
protocol CurlLoopPoller: AnyObject, Sendable {
    /// The descriptors to poll this turn and the longest wait in milliseconds; nil once it is done
    /// (the loop then forgets it).
    func prepareTurn() -> (descriptors: [pollfd], timeout: Int32)?
    /// What the poll found: the descriptors ``prepareTurn()`` gave, with their `revents` (none
    /// when the turn ended for libcurl's sake or the wait ran out).
    func finishTurn(_ polled: [pollfd])
    /// The loop has ended: no turn follows.
    func loopEnded()
}
