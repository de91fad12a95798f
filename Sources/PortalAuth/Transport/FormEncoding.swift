import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded` encoding, as ArcGIS token services and OAuth token
/// endpoints read it: every byte outside the unreserved set percent-encoded (a space as `%20`).
public enum FormEncoding {
    /// The hexadecimal digits of an escaped byte.
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether `byte` is written as it is: a letter, a digit, `-`, `.`, `_` or `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Percent-encodes one component.
    public static func escape(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes parameters, `name=value` pairs joined with `&`, in their order.
    public static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes a query string or form body: `&`-separated items (empty ones skipped), each
    /// `name=value` split at its first `=` (a `name` alone has the value ""), `+` read as a space
    /// and `%XX` as its byte. Read in bytes, as servers read it (an `&` is never part of another
    /// character).
    package static func decode(_ string: String) -> [(String, String)] {
        var string = string
        return string.withUTF8 { bytes in
            var pairs: [(String, String)] = []
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let item = bytes[start..<end]
                    if let equals = item.firstIndex(of: UInt8(ascii: "=")) {
                        pairs.append((unescape(item[..<equals]), unescape(item[(equals + 1)...])))
                    } else {
                        pairs.append((unescape(item), ""))
                    }
                }
                start = end + 1
            }
            return pairs
        }
    }

    /// One decoded name or value: `+` a space, `%XX` its byte (a `%` not followed by two hex
    /// digits stays as it is).
    private static func unescape(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.endIndex, let high = hexDigit(bytes[i + 1]),
                let low = hexDigit(bytes[i + 2])
            {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i] == UInt8(ascii: "+") ? 0x20 : bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
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
