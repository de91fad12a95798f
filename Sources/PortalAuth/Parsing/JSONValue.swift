#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value, for ArcGIS responses whose shape the caller does not fix in advance.
public enum JSONValue: Sendable, Equatable, Codable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// A number.
    case number(Double)
    /// A Boolean.
    case bool(Bool)
    /// An object.
    case object([String: JSONValue])
    /// An array.
    case array([JSONValue])
    /// `null`.
    case null

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n):
            if n.rounded() == n, abs(n) < 9e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
        case .bool(let b): try c.encode(b)
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        case .null: try c.encodeNil()
        }
    }

    /// Parses JSON bytes; throws ``PortalAuthError/Code/invalidResponse`` when they are not JSON.
    public static func parse(_ bytes: [UInt8], source: String) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw PortalAuthError(
                .invalidResponse,
                "\(source) did not answer with JSON (\(JSONValue.sniff(bytes))): the URL may not be an ArcGIS portal "
                    + "or server",
                remedy: .checkURL, cause: .other("JSON parse error"))
        }
    }

    /// A short description of what a non-JSON body looks like ("an HTML page", "empty body", …).
    static func sniff(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(512), as: UTF8.self).trimmedWhitespace.lowercased()
        if text.isEmpty { return "empty body" }
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.contains("<body") {
            return "an HTML page"
        }
        if text.hasPrefix("<") { return "XML or HTML" }
        return "malformed JSON"
    }

    /// The member of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The element of an array, or `nil`.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    /// The string value (numbers are rendered), or `nil`.
    public var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n.rounded() == n && abs(n) < 9e18 ? String(Int64(n)) : "\(n)"
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    /// The numeric value (numeric strings are parsed), or `nil`.
    public var doubleValue: Double? {
        switch self {
        case .number(let n): return n
        case .string(let s): return Double(s)
        default: return nil
        }
    }

    /// How a token answer gives a lifetime, and the range a server's number must fall in: no
    /// lifetime is negative, and none reaches past the year 9999 (a longer one would overflow the
    /// milliseconds a credential is stored with, and a date that far is no expiry a server means).
    public enum LifetimeUnit: Sendable {
        /// Seconds from now (`expires_in`, `refresh_token_expires_in`): at most 100 years.
        case secondsFromNow
        /// An instant in milliseconds since 1970 (generateToken's `expires`).
        case millisecondsSince1970
        /// An instant in seconds since 1970 (a JWT's `exp`).
        case secondsSince1970

        /// The largest number read in this unit.
        public var maximum: Double {
            switch self {
            case .secondsFromNow: return 3_155_760_000
            case .millisecondsSince1970: return 253_402_300_799_999
            case .secondsSince1970: return 253_402_300_799
            }
        }
    }

    /// A lifetime in a token answer (`expires`, `expires_in`): `nil` when absent or `null`; the
    /// number for a finite JSON number or a string of decimal digits with an optional fraction (some
    /// ArcGIS Server versions send `expires` as a string), within `unit`'s range (0 to
    /// ``LifetimeUnit/maximum``; the default takes the widest, milliseconds since 1970). Anything else
    /// (`"soon"`, `"nan"`, `true`, `"1e3"`, `-5`, `1e308`) throws an `invalidResponse` error: a token
    /// whose lifetime cannot be read would be kept as one that never expires, and never renewed.
    public func lifetime(
        _ key: String, from issuer: String, unit: LifetimeUnit = .millisecondsSince1970
    ) throws -> Double? {
        guard let value = self[key] else { return nil }
        let number: Double
        switch value {
        case .null: return nil
        case .number(let n) where n.isFinite: number = n
        case .string(let s) where Self.isDecimal(s): number = Double(s) ?? .infinity
        default:
            throw PortalAuthError(
                .invalidResponse,
                "\(issuer) sent a token whose '\(key)' is not a number: it was not used or stored",
                remedy: .none)
        }
        guard number >= 0, number <= unit.maximum else {
            throw PortalAuthError(
                .invalidResponse,
                "\(issuer) sent a token whose '\(key)' is out of range (negative, or past the year 9999): it was not "
                    + "used or stored",
                remedy: .reportToAdministrator(server: issuer))
        }
        return number
    }

    /// Digits, optionally a dot and more digits.
    private static func isDecimal(_ s: String) -> Bool {
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.utf8.count <= 20 && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
    }

    /// The Boolean value, or `nil`.
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .string(let s): return s == "true" ? true : (s == "false" ? false : nil)
        default: return nil
        }
    }

    /// The array value, or `nil`.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The object value, or `nil`.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }

    /// Compact JSON text.
    public var description: String { (try? jsonText(pretty: false)) ?? "null" }

    /// JSON text, optionally pretty-printed with sorted keys.
    public func jsonText(pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

extension StringProtocol {
    /// The string without leading and trailing white space.
    var trimmedWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
