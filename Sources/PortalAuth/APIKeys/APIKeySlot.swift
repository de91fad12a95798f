/// One of an API key credential's two slots. An ArcGIS API key credential (an item of type
/// `API Key`) holds up to two live keys at once, one per slot, so that a program can move from one
/// to the other without a moment in which no key works (``APIKeyRotation``).
public enum APIKeySlot: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Slot 1 (`apiToken=1`).
    case one = 1
    /// Slot 2 (`apiToken=2`).
    case two = 2

    /// The slot a key was issued in, read from the key itself: ArcGIS writes the slot's digit as
    /// the tenth character from the key's end (arcgis-rest-js's `slotForKey` reads the same
    /// place). `nil` for a key too short to carry it or with another character there (a legacy
    /// `AAPK…` key, or a key typed wrong).
    public init?(key: String) {
        let utf8 = Array(key.utf8)
        guard utf8.count >= 10 else { return nil }
        switch utf8[utf8.count - 10] {
        case UInt8(ascii: "1"): self = .one
        case UInt8(ascii: "2"): self = .two
        default: return nil
        }
    }

    /// The other slot: the one a rotation mints the next key in.
    public var other: APIKeySlot { self == .one ? .two : .one }

    /// `1` or `2`, as the `apiToken` parameter says it.
    public var description: String { String(rawValue) }
}
