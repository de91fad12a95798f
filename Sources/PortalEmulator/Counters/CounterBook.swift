import NIOConcurrencyHelpers

/// Thread-safe keeper of ``EmulatorCounters``.
final class CounterBook: Sendable {
    private let counters = NIOLockedValueBox(EmulatorCounters())

    /// A copy of the counters now.
    var snapshot: EmulatorCounters { counters.withLockedValue { $0 } }

    /// Sets everything back to zero.
    func reset() { counters.withLockedValue { $0 = EmulatorCounters() } }

    /// Changes the counters under the lock.
    func update(_ body: (inout EmulatorCounters) -> Void) {
        counters.withLockedValue { body(&$0) }
    }

    /// Counts one incoming request.
    func countRequest(path: String, host: String, carriesToken: Bool) {
        counters.withLockedValue { c in
            c.requests += 1
            c.requestsByPath[path, default: 0] += 1
            if carriesToken { c.tokenBearingRequestsByHost[host, default: 0] += 1 }
            if path.hasSuffix("/rest/info") { c.infoRequests += 1 }
        }
    }

    /// Counts a FeatureServer query under the key of the token kind that answered it.
    func countQuery(_ key: String) {
        counters.withLockedValue { $0.queriesByTokenKind[key, default: 0] += 1 }
    }
}
