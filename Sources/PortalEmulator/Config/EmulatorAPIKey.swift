public import Foundation

/// An API key the emulated portal accepts, as an ArcGIS developer credential's API key access
/// token: `AAPT…` (or a legacy `AAPK…` key), with privileges, an expiry and an optional referrer.
///
/// In JSON (`apiKeys` in the configuration) only `key` is required:
/// `{"key":"AAPT…","expires":"2027-01-01T00:00:00Z","privileges":["premium:user:geocode"]}`,
/// or `"lifetimeSeconds":86400` instead of `expires` (counted from the emulator's start, by its clock).
public struct EmulatorAPIKey: Codable, Sendable, Equatable {
    /// The token value clients send (`token=`, `X-Esri-Authorization: Bearer`, `Authorization: Bearer`).
    public var key: String
    /// A label for counters and logs; the key itself when absent.
    public var name: String?
    /// When the key stops working; nil to use ``lifetimeSeconds``.
    public var expires: Date?
    /// Seconds from the emulator's start (or from when the key is added at run time) until the key
    /// stops working, when ``expires`` is nil; nil for both means one year, the longest ArcGIS allows.
    public var lifetimeSeconds: Int?
    /// Privileges, e.g. `premium:user:geocode`, `premium:user:networkanalysis`, `premium:user:basemaps`,
    /// `portal:user:viewOrgItems`.
    public var privileges: [String]
    /// When set, every use must carry exactly this `Referer` header (else 498).
    public var referer: String?
    /// The developer credential (a configured app with a secret) that owns the key:
    /// `oauth2/revokeToken` and `oauth2/token` with `apiToken` act on its keys.
    public var clientId: String?
    /// The key's slot in its developer credential, 1 or 2 (Esri's API keys have two).
    public var slot: Int

    /// The privilege the geocoding service needs.
    public static let geocode = "premium:user:geocode"
    /// The privilege the routing service needs.
    public static let networkAnalysis = "premium:user:networkanalysis"
    /// The privilege the basemap styles service needs.
    public static let basemaps = "premium:user:basemaps"
    /// The privilege that reaches the organization's items and the federated feature service.
    public static let viewOrgItems = "portal:user:viewOrgItems"
    /// Every privilege above.
    public static let allPrivileges = [geocode, networkAnalysis, basemaps, viewOrgItems]

    /// The longest key the emulator accepts, in characters.
    static let maxKeyLength = 4096

    /// Creates an API key; `key` defaults to a fresh `AAPT…` token for `slot`.
    public init(
        key: String? = nil, name: String? = nil, expires: Date? = nil, lifetimeSeconds: Int? = nil,
        privileges: [String] = [], referer: String? = nil, clientId: String? = nil, slot: Int = 1
    ) {
        self.key = key ?? Self.generateKey(slot: slot)
        self.name = name
        self.expires = expires
        self.lifetimeSeconds = lifetimeSeconds
        self.privileges = privileges
        self.referer = referer
        self.clientId = clientId
        self.slot = slot
    }

    /// A random API key access token in Esri's shape: `AAPT` then base64url characters, with the
    /// slot digit tenth from the end (where arcgis-rest-js's `slotForKey` reads it).
    public static func generateKey(slot: Int = 1) -> String {
        let random = TokenStore.randomToken().replacingOccurrences(of: ".", with: "")
        return "AAPT" + random + String(min(max(slot, 1), 2)) + String(random.suffix(9))
    }

    /// The expiry in epoch milliseconds, counting ``lifetimeSeconds`` from `now`.
    func expiresMilliseconds(now: Int64) -> Int64 {
        if let expires { return Int64((expires.timeIntervalSince1970 * 1000).rounded()) }
        return now + Int64(max(0, min(lifetimeSeconds ?? 31_536_000, 10 * 31_536_000))) * 1000
    }

    /// The label counters use.
    var label: String { name ?? key }

    private enum CodingKeys: String, CodingKey {
        case key, name, expires, lifetimeSeconds, privileges, referer, clientId, slot
    }

    /// Decodes a key; only `key` is required. `expires` is an ISO 8601 date-time.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let key = try c.decode(String.self, forKey: .key)
        guard key.hasPrefix("AAPT") || key.hasPrefix("AAPK"), key.count <= Self.maxKeyLength,
            key.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .key, in: c, debugDescription: "an API key starts with AAPT (or AAPK) and has no spaces")
        }
        var expires: Date?
        if let text = try c.decodeIfPresent(String.self, forKey: .expires) {
            guard let date = Self.parseDate(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .expires, in: c, debugDescription: "expires must be an ISO 8601 date-time")
            }
            expires = date
        }
        let lifetime = try c.decodeIfPresent(Int.self, forKey: .lifetimeSeconds)
        if expires != nil, lifetime != nil {
            throw DecodingError.dataCorruptedError(
                forKey: .lifetimeSeconds, in: c, debugDescription: "give expires or lifetimeSeconds, not both")
        }
        let slot = try c.decodeIfPresent(Int.self, forKey: .slot) ?? 1
        guard slot == 1 || slot == 2 else {
            throw DecodingError.dataCorruptedError(forKey: .slot, in: c, debugDescription: "slot must be 1 or 2")
        }
        self.init(
            key: key, name: try c.decodeIfPresent(String.self, forKey: .name), expires: expires,
            lifetimeSeconds: lifetime, privileges: try c.decodeIfPresent([String].self, forKey: .privileges) ?? [],
            referer: try c.decodeIfPresent(String.self, forKey: .referer),
            clientId: try c.decodeIfPresent(String.self, forKey: .clientId), slot: slot)
    }

    /// Encodes every field (absent ones as null; `expires` as ISO 8601).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key, forKey: .key)
        try c.encode(name, forKey: .name)
        try c.encode(expires.map(Self.formatDate), forKey: .expires)
        try c.encode(lifetimeSeconds, forKey: .lifetimeSeconds)
        try c.encode(privileges, forKey: .privileges)
        try c.encode(referer, forKey: .referer)
        try c.encode(clientId, forKey: .clientId)
        try c.encode(slot, forKey: .slot)
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }

    static func formatDate(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
