#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds keys that appear twice in one JSON object: JSON decoders keep the last silently, so a
/// configuration file with `"client_id"` twice would be read with one of them quietly dropped.
enum DuplicateJSONKeys {
    /// The first key that appears twice in one object of `bytes` (valid JSON), or `nil`.
    static func first(in bytes: [UInt8]) -> String? {
        // One entry per open object (its keys so far) or array (nil).
        var scopes: [Set<String>?] = []
        var expectingKey = false
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                scopes.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                scopes.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !scopes.isEmpty { scopes.removeLast() }
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = scopes.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let (string, end) = readString(bytes, openingAt: index)
                if expectingKey, let last = scopes.indices.last, var keys = scopes[last] {
                    if keys.contains(string) { return string }
                    keys.insert(string)
                    scopes[last] = keys
                    expectingKey = false
                }
                index = end
                continue
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The string whose opening quote is at `start`, unescaped, and the index after its closing quote.
    static func readString(_ bytes: [UInt8], openingAt start: Int) -> (String, Int) {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        var index = start + 1
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                raw.append(bytes[index])
                index += 1
                continue
            }
            flush()
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "u"):
                var value = hexValue(bytes, at: index)
                index += 4
                // A surrogate pair (\uD83D\uDE00) is one character.
                if (0xD800..<0xDC00).contains(value), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    let low = hexValue(bytes, at: index + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            default: scalars.append(Unicode.Scalar(escaped))
            }
        }
        flush()
        return (String(scalars), index + 1)
    }

    /// The four hex digits at `index` (0xFFFD when they are not).
    static func hexValue(_ bytes: [UInt8], at index: Int) -> UInt32 {
        let hex = bytes[min(index, bytes.count)..<min(index + 4, bytes.count)]
        return UInt32(String(decoding: hex, as: UTF8.self), radix: 16) ?? 0xFFFD
    }
}
