import NIOConcurrencyHelpers

/// What the emulator holds for one API key.
struct APIKeyRecord: Sendable, Equatable {
    /// The configuration of the key.
    var key: EmulatorAPIKey
    /// Expiry, epoch milliseconds.
    var expires: Int64
    /// True once `oauth2/revokeToken` (or a regeneration, or the admin hook) invalidated it.
    var invalidated = false
}

/// Why an API key was refused.
enum APIKeyProblem: Error, Sendable, Equatable {
    case expired, invalidated, refererMismatch
}

/// The API keys the emulator accepts. Thread-safe.
final class APIKeyStore: Sendable {
    private let clock: EmulatorClock
    private let records = NIOLockedValueBox<[String: APIKeyRecord]>([:])

    /// A store holding `keys`, their lifetimes counted from now by `clock`.
    init(keys: [EmulatorAPIKey], clock: EmulatorClock) {
        self.clock = clock
        for key in keys { add(key) }
    }

    /// Adds (or replaces) a key; its lifetime counts from now.
    func add(_ key: EmulatorAPIKey) {
        let record = APIKeyRecord(key: key, expires: key.expiresMilliseconds(now: clock.nowMilliseconds))
        records.withLockedValue { $0[key.key] = record }
    }

    /// The record of `token` when it is one of the keys (valid or not).
    func record(for token: String) -> APIKeyRecord? {
        guard token.count <= EmulatorAPIKey.maxKeyLength else { return nil }
        return records.withLockedValue { $0[token] }
    }

    /// Checks a presented key: invalidated, expired (by the clock) or sent without its referrer.
    func validate(_ record: APIKeyRecord, referer: String?) -> Result<EmulatorAPIKey, APIKeyProblem> {
        if record.invalidated { return .failure(.invalidated) }
        if record.expires <= clock.nowMilliseconds { return .failure(.expired) }
        if let bound = record.key.referer, bound != referer { return .failure(.refererMismatch) }
        return .success(record.key)
    }

    /// Invalidates one key by its value; false when it is unknown.
    @discardableResult
    func invalidate(key: String) -> Bool {
        records.withLockedValue { records in
            guard records[key] != nil else { return false }
            records[key]?.invalidated = true
            return true
        }
    }

    /// Invalidates the keys of developer credential `clientID` in `slot`; returns how many.
    @discardableResult
    func invalidate(clientID: String, slot: Int) -> Int {
        records.withLockedValue { records in
            var count = 0
            for (value, record) in records
            where record.key.clientId == clientID && record.key.slot == slot && !record.invalidated {
                records[value]?.invalidated = true
                count += 1
            }
            return count
        }
    }

    /// Whether `clientID` has a key in `slot` that is neither invalidated nor expired.
    func hasLiveKey(clientID: String, slot: Int) -> Bool {
        let now = clock.nowMilliseconds
        return records.withLockedValue { records in
            records.values.contains {
                $0.key.clientId == clientID && $0.key.slot == slot && !$0.invalidated && $0.expires > now
            }
        }
    }

    /// Invalidates the keys of `clientID` in `slot` and issues a new key there with the privileges,
    /// referrer and lifetime of the newest one (or none), or those of `template` (a key credential
    /// made at run time: its privileges and the slot's expiry); returns it with its expiry.
    func regenerate(clientID: String, slot: Int, template: APIKeyApp? = nil) -> APIKeyRecord {
        let now = clock.nowMilliseconds
        return records.withLockedValue { records in
            let previous = records.values.filter { $0.key.clientId == clientID && $0.key.slot == slot }
                .max { $0.expires < $1.expires }
            for (value, record) in records where record.key.clientId == clientID && record.key.slot == slot {
                records[value]?.invalidated = true
            }
            var key = EmulatorAPIKey(
                privileges: previous?.key.privileges ?? [], referer: previous?.key.referer, clientId: clientID,
                slot: slot)
            key.name = previous?.key.name
            key.lifetimeSeconds = previous?.key.lifetimeSeconds
            if let template {
                key.privileges = template.privileges
                key.referer = template.httpReferrers.first
                key.lifetimeSeconds = template.expirations[slot].map { Int(max(0, $0 - now) / 1000) }
            }
            let record = APIKeyRecord(key: key, expires: key.expiresMilliseconds(now: now))
            records[key.key] = record
            return record
        }
    }
}
