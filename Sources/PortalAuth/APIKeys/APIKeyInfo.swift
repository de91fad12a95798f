#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a portal says of one API key credential (an item of type `API Key` with an app registered
/// as `appType=apikey`), from `content/users/{user}/items/{itemId}/registeredAppInfo`. It never
/// holds the app's `client_secret` nor a key.
public struct APIKeyInfo: Sendable, Equatable {
    /// One slot's state.
    public struct Slot: Sendable, Equatable {
        /// The slot.
        public var slot: APIKeySlot
        /// When a key minted in the slot expires (`apiToken1ExpirationDate`), when the portal says.
        public var expirationDate: Date?
        /// Whether the slot holds a live key (`apiToken1Active`), when the portal says.
        public var isActive: Bool?
    }

    /// The item's ID.
    public var itemID: String
    /// The item's title, when known (the listing reads it; `registeredAppInfo` does not carry it).
    public var title: String?
    /// The app's client ID.
    public var clientID: String
    /// The key's privileges (`premium:user:geocode`, `portal:user:viewOrgItems`, …).
    public var privileges: [String]
    /// The referrers the key is bound to, empty for any.
    public var httpReferrers: [String]
    /// Both slots, in order.
    public var slots: [Slot]

    /// Reads `registeredAppInfo`'s answer; nil when it is not an API key's (`appType` is not
    /// `apikey`) or lacks its item or client ID.
    public init?(registeredAppInfo json: JSONValue, title: String? = nil) {
        guard json["appType"]?.stringValue == "apikey", let itemID = json["itemId"]?.stringValue,
            let clientID = json["client_id"]?.stringValue
        else { return nil }
        self.itemID = itemID
        self.title = title
        self.clientID = clientID
        privileges = Self.strings(json["privileges"])
        httpReferrers = Self.strings(json["httpReferrers"])
        slots = APIKeySlot.allCases.map { slot in
            let milliseconds = json["apiToken\(slot)ExpirationDate"]?.doubleValue
            let date = milliseconds.flatMap { $0 > 0 ? Date(timeIntervalSince1970: $0 / 1000) : nil }
            return Slot(slot: slot, expirationDate: date, isActive: json["apiToken\(slot)Active"]?.boolValue)
        }
    }

    /// The state of `slot`.
    public func slot(_ slot: APIKeySlot) -> Slot { slots.first { $0.slot == slot } ?? Slot(slot: slot) }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let list)? = value else { return [] }
        return list.compactMap(\.stringValue)
    }
}

extension APIKeyInfo.Slot {
    init(slot: APIKeySlot) { self.init(slot: slot, expirationDate: nil, isActive: nil) }
}
