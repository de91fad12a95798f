/// A strict check of JSON text (RFC 8259) before it is decoded, for configuration files: what
/// lenient readers let through — trailing commas, comments, duplicate keys, single quotes,
/// bare words, NaN — is refused with its line and column. JSONDecoder does not name the place
/// of an error, and which of these it accepts depends on the Foundation in use.
///
/// One pass over the bytes with an explicit stack (no recursion; nesting deeper than
/// ``maxDepth`` is refused), so that any input ends in an answer: the fuzz target
/// ConfigurationFile feeds it arbitrary bytes.
package enum StrictJSON {
    /// What is wrong and where (1-based line, and column in bytes).
    package struct Problem: Error, Equatable, Sendable {
        package var message: String
        package var line: Int
        package var column: Int
        /// The key that appears twice, for that problem.
        package var duplicateKey: String?
    }

    /// Nesting deeper than this is refused.
    package static let maxDepth = 512

    private enum Scope {
        case object(keys: Set<String>)
        case array
    }

    /// The first problem of `bytes`, or nil when they are one strict JSON value.
    package static func firstProblem(in bytes: [UInt8]) -> Problem? {
        var index = 0
        // A UTF-8 byte order mark is tolerated at the very start.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        var stack: [Scope] = []

        func problem(_ message: String, at offset: Int, key: String? = nil) -> Problem {
            let offset = min(offset, bytes.count)
            var line = 1
            var lineStart = 0
            for i in 0..<offset where bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            return Problem(message: message, line: line, column: offset - lineStart + 1, duplicateKey: key)
        }

        // JSON text is UTF-8: a decoder refuses anything else, so this pass does too.
        var utf8 = Unicode.UTF8.ForwardParser()
        var bytesIterator = bytes.makeIterator()
        var decoded = 0
        decoding: while true {
            switch utf8.parseScalar(from: &bytesIterator) {
            case .valid(let scalar): decoded += scalar.count
            case .emptyInput: break decoding
            case .error:
                return problem("bytes that are not UTF-8: JSON is UTF-8 text", at: decoded)
            }
        }

        func skipWhitespace() -> Problem? {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                case UInt8(ascii: "/")
                where index + 1 < bytes.count
                    && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")):
                    return problem("a comment: JSON has no comments (remove it)", at: index)
                case UInt8(ascii: "#"):
                    return problem("a comment: JSON has no comments (remove it)", at: index)
                default: return nil
                }
            }
            return nil
        }

        /// Reads a string starting at its opening quote; returns its text or a problem.
        func readString() -> Result<String, Problem> {
            let start = index
            index += 1
            var raw: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return .success(String(decoding: raw, as: UTF8.self))
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else {
                        return .failure(problem("a string that is never closed", at: start))
                    }
                    let escaped = bytes[index + 1]
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                        raw.append(escaped)
                    case UInt8(ascii: "b"): raw.append(0x08)
                    case UInt8(ascii: "f"): raw.append(0x0C)
                    case UInt8(ascii: "n"): raw.append(0x0A)
                    case UInt8(ascii: "r"): raw.append(0x0D)
                    case UInt8(ascii: "t"): raw.append(0x09)
                    case UInt8(ascii: "u"):
                        guard index + 5 < bytes.count,
                            bytes[(index + 2)...(index + 5)].allSatisfy({ isHexDigit($0) })
                        else {
                            return .failure(problem("a \\u escape needs four hexadecimal digits", at: index))
                        }
                        // Keys are compared as written after escapes; \u text is kept as its digits.
                        raw.append(contentsOf: bytes[index...(index + 5)])
                        index += 6
                        continue
                    default:
                        return .failure(
                            problem("an unknown escape \\\(Unicode.Scalar(escaped)) in a string", at: index))
                    }
                    index += 2
                    continue
                case 0x00..<0x20:
                    return .failure(
                        problem(
                            byte == 0x0A
                                ? "a string runs past the end of its line (a missing \" ?)"
                                : "a control character in a string (escape it)", at: index))
                default:
                    raw.append(byte)
                    index += 1
                }
            }
            return .failure(problem("a string that is never closed", at: start))
        }

        func isHexDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }

        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        /// Reads a number, true, false or null.
        func readScalar() -> Problem? {
            let start = index
            let byte = bytes[index]
            if byte == UInt8(ascii: "-") || isDigit(byte) {
                if byte == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else {
                    return problem("a number needs digits", at: start)
                }
                if bytes[index] == UInt8(ascii: "0") {
                    index += 1
                    if index < bytes.count, isDigit(bytes[index]) {
                        return problem("a number with a leading zero", at: start)
                    }
                } else {
                    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                }
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    guard index < bytes.count, isDigit(bytes[index]) else {
                        return problem("a number needs digits after its decimal point", at: start)
                    }
                    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                }
                if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                    index += 1
                    if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                        index += 1
                    }
                    guard index < bytes.count, isDigit(bytes[index]) else {
                        return problem("a number needs digits in its exponent", at: start)
                    }
                    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                }
                return nil
            }
            for word in ["true", "false", "null"] {
                let utf8 = Array(word.utf8)
                if bytes[index...].starts(with: utf8) {
                    index += utf8.count
                    return nil
                }
            }
            if byte == UInt8(ascii: "'") {
                return problem("a single quote: JSON strings take double quotes", at: start)
            }
            return problem(
                "not a JSON value (strings take double quotes; true, false and null are lower case)", at: start)
        }

        /// Reads `"key" :` in the innermost object, checking it is not a duplicate.
        func readKey() -> Problem? {
            if let found = skipWhitespace() { return found }
            guard index < bytes.count else { return problem("the text ends where a key was expected", at: index) }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "}") {
                    return problem("a trailing comma before }: JSON allows none", at: index)
                }
                return problem("expected a key in double quotes", at: index)
            }
            let start = index
            let key: String
            switch readString() {
            case .failure(let found): return found
            case .success(let text): key = text
            }
            guard case .object(var keys) = stack[stack.count - 1] else { return nil }
            if keys.contains(key) {
                return problem(
                    "the key \"\(key)\" appears twice in one object (JSON readers would silently use the last)",
                    at: start, key: key)
            }
            keys.insert(key)
            stack[stack.count - 1] = .object(keys: keys)
            if let found = skipWhitespace() { return found }
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                return problem("expected : after the key \"\(key)\"", at: index)
            }
            index += 1
            return nil
        }

        // The loop reads a value, then what may follow it in its scope.
        var expectingValue = true
        scan: while true {
            if let found = skipWhitespace() { return found }
            if expectingValue {
                guard index < bytes.count else {
                    return problem(
                        stack.isEmpty ? "no JSON value (the file is empty)" : "the text ends inside a value", at: index)
                }
                switch bytes[index] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard stack.count < maxDepth else {
                        return problem("nesting deeper than \(maxDepth) levels", at: index)
                    }
                    let isObject = bytes[index] == UInt8(ascii: "{")
                    index += 1
                    if let found = skipWhitespace() { return found }
                    if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        expectingValue = false
                        if stack.isEmpty { break scan }
                        continue
                    }
                    stack.append(isObject ? .object(keys: []) : .array)
                    if isObject {
                        // A key, then a colon.
                        if let found = readKey() { return found }
                    }
                    continue
                case UInt8(ascii: "\""):
                    if case .failure(let found) = readString() { return found }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    var previous = index - 1
                    while previous >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[previous]) { previous -= 1 }
                    let closing = Unicode.Scalar(bytes[index])
                    if previous >= 0, bytes[previous] == UInt8(ascii: ",") {
                        return problem("a trailing comma before \(closing): JSON allows none", at: index)
                    }
                    if previous >= 0, bytes[previous] == UInt8(ascii: ":") {
                        return problem("a value is missing after the colon", at: index)
                    }
                    return problem("a \(closing) that does not match the bracket open here", at: index)
                default:
                    if let found = readScalar() { return found }
                }
                expectingValue = false
                if stack.isEmpty { break scan }
                continue
            }
            // After a value inside an array or object: a comma or the closing bracket.
            guard let scope = stack.last else { break scan }
            guard index < bytes.count else { return problem("the text ends before a closing bracket", at: index) }
            let byte = bytes[index]
            switch (scope, byte) {
            case (_, UInt8(ascii: ",")):
                index += 1
                if case .object = scope {
                    if let found = readKey() { return found }
                }
                expectingValue = true
            case (.object, UInt8(ascii: "}")), (.array, UInt8(ascii: "]")):
                index += 1
                stack.removeLast()
                if stack.isEmpty { break scan }
            default:
                if case .object = scope {
                    return problem("expected , or } after a value in an object (a missing comma?)", at: index)
                }
                return problem("expected , or ] after a value in an array (a missing comma?)", at: index)
            }
            if stack.isEmpty { break scan }
        }
        if let found = skipWhitespace() { return found }
        if index < bytes.count { return problem("more text after the JSON value", at: index) }
        return nil

    }
}
