import NIOConcurrencyHelpers

/// The faults that fire for one request.
struct FiredFaults: Sendable, Equatable {
    /// Total delay from latency faults, milliseconds.
    var latencyMilliseconds = 0
    /// The first non-latency fault that matched, if any.
    var fault: Fault?
}

/// The injected fault rules, consumed as they fire. Thread-safe.
final class FaultTable: Sendable {
    private let rules = NIOLockedValueBox<[Fault]>([])

    /// Adds rules at the end.
    func add(_ faults: [Fault]) {
        rules.withLockedValue { $0.append(contentsOf: faults) }
    }

    /// Removes every rule.
    func clear() {
        rules.withLockedValue { $0.removeAll() }
    }

    /// The rules still armed.
    var armed: [Fault] { rules.withLockedValue { $0 } }

    /// Decides which faults fire for a request and uses up their counts. Every matching
    /// latency rule adds its delay; the first matching other rule fires. `rejectAllTokens`
    /// only matches requests that carry a token.
    func fire(path: String, carriesToken: Bool) -> FiredFaults {
        rules.withLockedValue { rules in
            var fired = FiredFaults()
            var index = 0
            while index < rules.count {
                let rule = rules[index]
                let pathMatches = rule.pathContains.map { path.contains($0) } ?? true
                var fires = false
                if pathMatches {
                    switch rule.kind {
                    case .latency:
                        fired.latencyMilliseconds += max(0, rule.milliseconds ?? 0)
                        fires = true
                    case .rejectAllTokens:
                        fires = carriesToken && fired.fault == nil
                    default:
                        fires = fired.fault == nil
                    }
                    if fires, rule.kind != .latency { fired.fault = rule }
                }
                if fires, let remaining = rule.count {
                    if remaining <= 1 {
                        rules.remove(at: index)
                        continue
                    }
                    rules[index].count = remaining - 1
                }
                index += 1
            }
            return fired
        }
    }
}
