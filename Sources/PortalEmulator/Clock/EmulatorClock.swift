public import Foundation
import NIOConcurrencyHelpers

/// The one clock every expiry decision in the emulator reads: tokens, OAuth codes and refresh
/// tokens, sign-in states and Entra tokens. It runs with the system clock, plus an offset that
/// tests move forward (``advance(by:)``, or `POST /emulator/clock` with `advance=SECONDS`) to
/// make time pass without waiting.
public final class EmulatorClock: Sendable {
    private let offsetMilliseconds = NIOLockedValueBox<Int64>(0)

    /// A clock that reads the system time (no offset).
    public init() {}

    /// The emulator's current time.
    public var now: Date {
        Date(timeIntervalSince1970: Double(nowMilliseconds) / 1000)
    }

    /// How far the clock has been moved ahead of the system time.
    public var offset: Duration {
        .milliseconds(offsetMilliseconds.withLockedValue { $0 })
    }

    /// Moves the clock forward by `duration` (negative durations are refused: time only moves on).
    /// - Returns: The new current time.
    @discardableResult
    public func advance(by duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        offsetMilliseconds.withLockedValue { $0 += max(0, milliseconds) }
        return now
    }

    /// The current time in epoch milliseconds, as tokens' `expires` counts it.
    var nowMilliseconds: Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded()) + offsetMilliseconds.withLockedValue { $0 }
    }
}
