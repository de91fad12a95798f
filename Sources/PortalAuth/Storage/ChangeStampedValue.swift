/// A value read from credential stores, kept with the stores' change stamps taken before it was
/// read, and given back while their stamps stay the same (``CredentialStoreChangeStamp``): a
/// long-running reader reads the stores again only after a change, in this process or another.
///
/// Safe to share between tasks: whichever reading is kept last wins, and since each value was
/// read after its stamps were taken, a kept value is never older than its stamps say.
///
/// A value is also given back for at most ``maximumAge``: a change that leaves no stamp behind
/// (the keyring's index is in a folder chosen by the environment, so a `portal-auth logout` run
/// by cron without `XDG_RUNTIME_DIR` removes another folder's; `secret-tool` removes none) counts
/// within that time.
package final class ChangeStampedValue<Value: Sendable>: Sendable {
    private let kept = Locked<
        (stamps: [CredentialStoreChangeStamp?], value: Value, readAt: ContinuousClock.Instant)?
    >(nil)
    /// How long a kept value is given back at most, whatever the stamps say.
    package let maximumAge: Duration

    /// Nothing kept; a value is kept for at most `maximumAge`.
    package init(maximumAge: Duration = .seconds(2)) {
        self.maximumAge = maximumAge
    }

    /// The kept value when `stamps`, taken `now`, say that nothing changed since it was read and
    /// it is younger than ``maximumAge``; nil when they differ, one is unknown, it is too old, or
    /// nothing is kept.
    package func value(
        at stamps: [CredentialStoreChangeStamp?], now: ContinuousClock.Instant = .now
    ) -> Value? {
        kept.withLock { kept in
            guard let kept, now - kept.readAt < maximumAge,
                CredentialStoreChangeStamp.unchanged(since: kept.stamps, now: stamps)
            else { return nil }
            return kept.value
        }
    }

    /// Keeps `value`, read after `stamps` were taken (at `readAt`, before the reading); when a
    /// stamp is unknown nothing is kept (and what was kept is forgotten).
    package func keep(
        _ value: Value, readAfter stamps: [CredentialStoreChangeStamp?], readAt: ContinuousClock.Instant = .now
    ) {
        kept.withLock { $0 = stamps.allSatisfy { $0 != nil } ? (stamps, value, readAt) : nil }
    }
}
