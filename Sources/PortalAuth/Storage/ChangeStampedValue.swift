/// A value read from credential stores, kept with the stores' change stamps taken before it was
/// read, and given back while their stamps stay the same (``CredentialStoreChangeStamp``): a
/// long-running reader reads the stores again only after a change, in this process or another.
///
/// Safe to share between tasks: whichever reading is kept last wins, and since each value was
/// read after its stamps were taken, a kept value is never older than its stamps say.
package final class ChangeStampedValue<Value: Sendable>: Sendable {
    private let kept = Locked<(stamps: [CredentialStoreChangeStamp?], value: Value)?>(nil)

    /// Nothing kept.
    package init() {}

    /// The kept value when `stamps`, taken now, say that nothing changed since it was read; nil
    /// when they differ, one is unknown, or nothing is kept.
    package func value(at stamps: [CredentialStoreChangeStamp?]) -> Value? {
        kept.withLock { kept in
            guard let kept, CredentialStoreChangeStamp.unchanged(since: kept.stamps, now: stamps) else { return nil }
            return kept.value
        }
    }

    /// Keeps `value`, read after `stamps` were taken; when a stamp is unknown nothing is kept
    /// (and what was kept is forgotten).
    package func keep(_ value: Value, readAfter stamps: [CredentialStoreChangeStamp?]) {
        kept.withLock { $0 = stamps.allSatisfy { $0 != nil } ? (stamps, value) : nil }
    }
}
