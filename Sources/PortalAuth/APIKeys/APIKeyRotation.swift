/// Rotating an API key without downtime, as a state machine that returns the next action and
/// does no I/O itself (``APIKeyAdministration/rotate(_:report:)`` performs the actions).
///
/// The order keeps a working key stored at every moment:
/// 1. ``Action/mint(_:)`` the slot the stored key is *not* in (the stored key keeps working);
/// 2. ``Action/verify`` that the new key works on the key's own portal and services;
/// 3. ``Action/commit`` the new key to the store, in one change;
/// 4. ``Action/revoke(_:)`` the old key's slot, so the old key stops working.
///
/// A failure before the commit ends the rotation with the old key stored and working
/// (``Outcome/failed(_:)``); a failure to revoke after the commit leaves the new key stored and
/// the old one still live until it is revoked (``Outcome/rotatedOldKeyStillLive(from:to:)``).
public struct APIKeyRotation: Sendable, Equatable {
    /// A step of a rotation, for reports.
    public enum Step: String, Sendable, Hashable, CaseIterable {
        case mint, verify, commit, revoke
    }

    /// What the caller does next.
    public enum Action: Sendable, Equatable {
        /// Mint (regenerate) a key in this slot, then call ``minted(key:)``.
        case mint(APIKeySlot)
        /// Check the new key on the key's portal and services, then call ``verified()``.
        case verify
        /// Store the new key in place of the old one, then call ``committed()``.
        case commit
        /// Revoke the key in this slot (the old key), then call ``revoked()``.
        case revoke(APIKeySlot)
        /// Nothing more: the rotation ended so.
        case finish(Outcome)
    }

    /// How a rotation ended.
    public enum Outcome: Sendable, Equatable {
        /// The new key is stored and the old slot revoked.
        case rotated(from: APIKeySlot, to: APIKeySlot)
        /// The new key is stored, but revoking the old slot failed: the old key still works until
        /// its slot is revoked.
        case rotatedOldKeyStillLive(from: APIKeySlot, to: APIKeySlot)
        /// The step failed before the commit: the old key is still stored and working.
        case failed(Step)
    }

    enum State: Sendable, Equatable {
        case idle, minting, verifying, committing, revoking, finished(Outcome)
    }

    /// The slot of the key in use when the rotation started.
    public let oldSlot: APIKeySlot
    private(set) var state: State = .idle

    /// A rotation of the key in `oldSlot`.
    public init(oldSlot: APIKeySlot) { self.oldSlot = oldSlot }

    /// The slot the new key goes to.
    public var newSlot: APIKeySlot { oldSlot.other }

    /// The step in progress, `nil` before the start and after the end.
    public var step: Step? {
        switch state {
        case .minting: .mint
        case .verifying: .verify
        case .committing: .commit
        case .revoking: .revoke
        case .idle, .finished: nil
        }
    }

    /// Starts: mint the other slot.
    public mutating func start() -> Action {
        guard state == .idle else { return unexpected() }
        state = .minting
        return .mint(newSlot)
    }

    /// The portal issued `key`: it must be in the slot asked for (when the key says its slot), then
    /// it is verified. A key in the stored key's own slot would have replaced the stored key, so it
    /// fails the mint.
    public mutating func minted(key: String) -> Action {
        guard state == .minting else { return unexpected() }
        if let slot = APIKeySlot(key: key), slot != newSlot { return failed() }
        state = .verifying
        return .verify
    }

    /// The new key works: store it.
    public mutating func verified() -> Action {
        guard state == .verifying else { return unexpected() }
        state = .committing
        return .commit
    }

    /// The new key is stored: revoke the old slot.
    public mutating func committed() -> Action {
        guard state == .committing else { return unexpected() }
        state = .revoking
        return .revoke(oldSlot)
    }

    /// The old slot is revoked: done.
    public mutating func revoked() -> Action {
        guard state == .revoking else { return unexpected() }
        return finish(.rotated(from: oldSlot, to: newSlot))
    }

    /// The step in progress failed.
    public mutating func failed() -> Action {
        switch state {
        case .minting: return finish(.failed(.mint))
        case .verifying: return finish(.failed(.verify))
        case .committing: return finish(.failed(.commit))
        case .revoking: return finish(.rotatedOldKeyStillLive(from: oldSlot, to: newSlot))
        case .idle: return finish(.failed(.mint))
        case .finished(let outcome): return .finish(outcome)
        }
    }

    private mutating func finish(_ outcome: Outcome) -> Action {
        state = .finished(outcome)
        return .finish(outcome)
    }

    /// An event out of order ends the rotation where it stands: before the commit, as a failure of
    /// the step in progress (the old key stays stored).
    private mutating func unexpected() -> Action { failed() }
}
