#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension APIKeyAdministration {
    /// Rotates the stored key `stored` without downtime, performing ``APIKeyRotation``'s actions:
    /// mints the slot not in use, checks the new key on the portal (whose `portals/self` also
    /// lists the key's services again), stores it in place of `stored` in one commit, then revokes
    /// the old slot. `report` hears of each step as it ends (with its error when it failed).
    ///
    /// A failure before the commit leaves `stored` stored and working (``APIKeyRotation/Outcome/failed(_:)``).
    ///
    /// - Parameters:
    ///   - stored: the stored key; it must know its item (``APIKeyCredential/itemID``, set for keys
    ///     ``create(_:)`` made) unless `itemID` is given.
    ///   - itemID: the key's item, when `stored` does not know it.
    ///   - expiration: when the new key expires; `nil` keeps the expiry the portal has for its slot.
    /// - Throws: ``PortalAuthError/Code/invalidArgument`` before any request when the item or the
    ///   stored key's slot is unknown.
    public func rotate(
        _ stored: APIKeyCredential, itemID: String? = nil, expiration: Date? = nil,
        report: (APIKeyRotation.Step, (any Error)?) -> Void = { _, _ in }
    ) async throws -> APIKeyRotation.Outcome {
        guard let item = itemID ?? stored.itemID else {
            throw PortalAuthError(
                .invalidArgument, "the stored API key for \(portal) does not say which API key item it belongs to",
                remedy: .storeAPIKey(portal: portal))
        }
        guard let oldSlot = APIKeySlot(key: stored.tokenInfo.accessToken) else {
            throw PortalAuthError(
                .invalidArgument, "the stored API key for \(portal) does not say which slot it is in",
                remedy: .storeAPIKey(portal: portal))
        }
        var machine = APIKeyRotation(oldSlot: oldSlot)
        var action = machine.start()
        var fresh: APIKeyCredential?
        while true {
            let step = machine.step
            do {
                switch action {
                case .mint(let slot):
                    let minted = try await mintForRotation(item: item, slot: slot, expiration: expiration)
                    if let minted = APIKeySlot(key: minted.accessToken), minted != slot {
                        throw PortalAuthError(
                            .invalidResponse, "\(portal) minted a key in slot \(minted), not in slot \(slot)",
                            remedy: .retryLater)
                    }
                    fresh = try APIKeyCredential(
                        apiKey: minted.accessToken, portalURL: URL(string: portal.url)!,
                        expirationDate: minted.expirationDate ?? expiration)
                    action = machine.minted(key: minted.accessToken)
                case .verify:
                    fresh = try await storableCredential(
                        fresh!.tokenInfo, itemID: item, expiration: expiration, hosts: Self.hostNames(stored))
                    action = machine.verified()
                case .commit:
                    try await manager.arcGISCredentialStore.commit(fresh!, origin: .signIn)
                    action = machine.committed()
                case .revoke(let slot):
                    try await revoke(itemID: item, slot: slot)
                    action = machine.revoked()
                case .finish(let outcome):
                    return outcome
                }
                if let step, machine.step != step { report(step, nil) }
            } catch {
                if let step { report(step, error) }
                action = machine.failed()
            }
        }
    }

    /// Mints `slot` of `item`, first setting its expiry when `expiration` is given.
    func mintForRotation(item: String, slot: APIKeySlot, expiration: Date?) async throws -> TokenInfo {
        if let expiration {
            try Self.checkLifetime(expiration, now: Date())
            let current = try await info(itemID: item)
            let new = NewKey(
                title: "", privileges: current.privileges, httpReferrers: current.httpReferrers,
                expirationDate: expiration)
            try await setExpiration(clientID: current.clientID, new, slots: [slot])
        }
        return try await mint(itemID: item, slot: slot)
    }

    /// The stored key's extra hosts as `host:port`, for the new key to keep them.
    static func hostNames(_ key: APIKeyCredential) -> [String] {
        key.hosts.map { "\($0.host.contains(":") ? "[\($0.host)]" : $0.host):\($0.port)" }
    }
}
