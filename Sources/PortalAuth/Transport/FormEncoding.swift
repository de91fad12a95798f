import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded` encoding, as ArcGIS token services and OAuth token
/// endpoints read it: every byte outside the unreserved set percent-encoded (a space as `%20`).
public enum FormEncoding {
    private static let unreserved: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Percent-encodes one component.
    public static func escape(_ string: String) -> String {
        var out = ""
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }

    /// Encodes parameters, `name=value` pairs joined with `&`, in their order.
    public static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes a query string or form body.
    package static func decode(_ string: String) -> [(String, String)] {
        string.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ s: Substring) -> String {
                let bytes = Array(s.utf8)
                var out: [UInt8] = []
                var i = 0
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hexDigit(bytes[i + 1]),
                        let low = hexDigit(bytes[i + 2])
                    {
                        out.append(high << 4 | low); i += 3
                    } else {
                        out.append(bytes[i] == UInt8(ascii: "+") ? 0x20 : bytes[i]); i += 1
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// The value of an ASCII hexadecimal digit (`UInt8(_:radix:)` also takes a sign: `%+F`).
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
