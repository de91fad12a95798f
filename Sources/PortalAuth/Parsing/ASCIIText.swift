#if canImport(Glibc)
import Glibc
#endif

/// Byte-level reading of protocol text (header names, URLs) without building new strings: what a
/// request's hot path asks many times (a header by name, a URL seen before).
package enum ASCIIText {
    /// Whether `left` and `right` are the same text, ASCII letters compared without case (as HTTP
    /// compares header names); other bytes must be equal.
    package static func equalsIgnoringCase(_ left: String, _ right: String) -> Bool {
        var left = left.utf8.makeIterator()
        var right = right.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?) where a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20)): continue
            default: return false
            }
        }
    }

    /// Whether `left` and `right` hold the same bytes (not as Swift compares strings, which takes
    /// canonically equivalent text as equal).
    package static func sameBytes(_ left: String, _ right: String) -> Bool {
        let count = left.utf8.count
        guard count == right.utf8.count else { return false }
        var left = left
        var right = right
        return left.withUTF8 { a in
            right.withUTF8 { b in
                guard let a = a.baseAddress, let b = b.baseAddress else { return true }  // (both empty)
                return memcmp(a, b, count) == 0
            }
        }
    }

    /// `text` without the spaces and tabs it starts or ends with.
    package static func trimmingBlanks(_ text: Substring) -> String {
        var text = text
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }

    /// Whether `bytes` holds `needle` (a short, fixed pattern: linear in `bytes`).
    package static func contains<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first else { return true }
        var index = bytes.startIndex
        while let start = bytes[index...].firstIndex(of: first) {
            if bytes[start...].starts(with: pattern) { return true }
            index = bytes.index(after: start)
        }
        return false
    }

    /// Whether `text` holds a control character (below 0x20, or DEL).
    package static func containsControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
