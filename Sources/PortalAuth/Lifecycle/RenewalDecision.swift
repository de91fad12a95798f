import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ``RenewOnce``'s decisions, without I/O (their table: `Tests/PortalAuthUnitTests/LifecycleStateTests.swift`).
enum RenewalDecision {
    /// What a renewal does first, from the stored copy read under the lock.
    enum FirstStep: Equatable {
        /// The stored copy answers: renewed by another task or process meanwhile, or not close to
        /// expiry (and not refused).
        case useStored
        /// Signed out meanwhile (another process ran logout): not brought back.
        case signedOut
        /// Renew it.
        case renew
    }

    /// What is used when nothing renewed the credential.
    enum WhenNothingRenews: Equatable {
        /// The current credential, until it expires.
        case current
        /// Nothing: it was refused, or it expired.
        case none
    }

    /// The first step for `current` when `stored` (with its leeway) is what the store holds now.
    /// A different, unexpired stored token is another's renewal (even when its lifetime is shorter
    /// than the leeway, renewing again would only repeat it); a refused token renews even before
    /// its expiry.
    static func firstStep(
        current: TokenInfo, stored: TokenInfo?, storedLeeway: TimeInterval, refused: Bool, crossProcess: Bool
    ) -> FirstStep {
        guard let stored else { return crossProcess ? .signedOut : .renew }
        if stored.accessToken != current.accessToken, !stored.expires(within: 30) { return .useStored }
        if !refused, !stored.expires(within: storedLeeway) { return .useStored }
        return .renew
    }

    /// The first step of a renewal to last (``Renewal/lasting``) for a credential renewable until
    /// `current` when the store holds one renewable until `stored` (`nil` when it holds none, and
    /// `.some(nil)` when the stored one is renewable for ever): a stored copy whose end differs
    /// was renewed to last by another task or process meanwhile.
    static func firstStepToLast(current: Date?, stored: Date??, crossProcess: Bool) -> FirstStep {
        guard let stored else { return crossProcess ? .signedOut : .renew }
        return sameEnd(stored, current) ? .renew : .useStored
    }

    /// Whether two ends of a renewal are the same: both none, or within a second of each other
    /// (the store keeps dates as milliseconds in a double, which does not give every `Date` back
    /// exactly).
    static func sameEnd(_ one: Date?, _ other: Date?) -> Bool {
        switch (one, other) {
        case (nil, nil): true
        case (let one?, let other?): abs(one.timeIntervalSince(other)) < 1
        default: false
        }
    }

    /// When nothing renewed it: a refused or expired credential is not used again; one only close
    /// to expiry is used until it expires.
    static func whenNothingRenews(refused: Bool, expired: Bool) -> WhenNothingRenews {
        refused || expired ? .none : .current
    }
}
