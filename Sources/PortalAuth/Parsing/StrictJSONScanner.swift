/// The one pass of ``StrictJSON/firstProblem(in:)`` over the bytes: where it is, and the scopes
/// open there (an explicit stack, no recursion).
struct StrictJSONScanner {
    private enum Scope {
        case object(keys: Set<String>)
        case array
    }

    /// What the scan does next, after one step.
    private enum Step {
        /// Read a value.
        case value
        /// Read what may follow a value in its scope: a comma or the closing bracket.
        case afterValue
        /// The value is complete: only whitespace may follow.
        case end
        /// Stop at this problem.
        case problem(StrictJSON.Problem)
    }

    private let bytes: [UInt8]
    private var index = 0
    private var stack: [Scope] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is tolerated at the very start.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// The first problem of the bytes, or nil when they are one strict JSON value.
    mutating func firstProblem() -> StrictJSON.Problem? {
        if let found = utf8Problem() { return found }
        // The loop reads a value, then what may follow it in its scope.
        var step = Step.value
        scan: while true {
            if let found = skipWhitespace() { return found }
            switch step {
            case .value: step = readValue()
            case .afterValue: step = readAfterValue()
            case .end: break scan
            case .problem(let found): return found
            }
        }
        if index < bytes.count { return problem("more text after the JSON value", at: index) }
        return nil
    }

    private func problem(_ message: String, at offset: Int, key: String? = nil) -> StrictJSON.Problem {
        let offset = min(offset, bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<offset where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return StrictJSON.Problem(message: message, line: line, column: offset - lineStart + 1, duplicateKey: key)
    }

    /// JSON text is UTF-8: a decoder refuses anything else, so this pass does too.
    private func utf8Problem() -> StrictJSON.Problem? {
        var utf8 = Unicode.UTF8.ForwardParser()
        var bytesIterator = bytes.makeIterator()
        var decoded = 0
        while true {
            switch utf8.parseScalar(from: &bytesIterator) {
            case .valid(let scalar): decoded += scalar.count
            case .emptyInput: return nil
            case .error: return problem("bytes that are not UTF-8: JSON is UTF-8 text", at: decoded)
            }
        }
    }

    private mutating func skipWhitespace() -> StrictJSON.Problem? {
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

    /// Reads a value, or opens the scope of an object or array.
    private mutating func readValue() -> Step {
        guard index < bytes.count else {
            return .problem(
                problem(stack.isEmpty ? "no JSON value (the file is empty)" : "the text ends inside a value", at: index)
            )
        }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return openScope()
        case UInt8(ascii: "\""):
            if case .failure(let found) = readString() { return .problem(found) }
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            return .problem(misplacedClosingBracket())
        default:
            if let found = readScalar() { return .problem(found) }
        }
        return stack.isEmpty ? .end : .afterValue
    }

    /// Reads `{` or `[`: an empty object or array is a value; otherwise its scope opens (with an
    /// object's first key).
    private mutating func openScope() -> Step {
        guard stack.count < StrictJSON.maxDepth else {
            return .problem(problem("nesting deeper than \(StrictJSON.maxDepth) levels", at: index))
        }
        let isObject = bytes[index] == UInt8(ascii: "{")
        index += 1
        if let found = skipWhitespace() { return .problem(found) }
        if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
            index += 1
            return stack.isEmpty ? .end : .afterValue
        }
        stack.append(isObject ? .object(keys: []) : .array)
        // A key, then a colon.
        if isObject, let found = readKey() { return .problem(found) }
        return .value
    }

    /// A closing bracket where a value was expected: what is wrong before it.
    private func misplacedClosingBracket() -> StrictJSON.Problem {
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
    }

    /// After a value inside an array or object: a comma or the closing bracket.
    private mutating func readAfterValue() -> Step {
        guard let scope = stack.last else { return .end }
        guard index < bytes.count else { return .problem(problem("the text ends before a closing bracket", at: index)) }
        switch (scope, bytes[index]) {
        case (_, UInt8(ascii: ",")):
            index += 1
            if case .object = scope, let found = readKey() { return .problem(found) }
            return .value
        case (.object, UInt8(ascii: "}")), (.array, UInt8(ascii: "]")):
            index += 1
            stack.removeLast()
            return stack.isEmpty ? .end : .afterValue
        case (.object, _):
            return .problem(problem("expected , or } after a value in an object (a missing comma?)", at: index))
        case (.array, _):
            return .problem(problem("expected , or ] after a value in an array (a missing comma?)", at: index))
        }
    }

    /// Reads a string starting at its opening quote; returns its text or a problem.
    private mutating func readString() -> Result<String, StrictJSON.Problem> {
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
                if let found = readEscape(into: &raw) { return .failure(found) }
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

    /// Reads the escape at `index` (a backslash and what follows it) into `raw`.
    private mutating func readEscape(into raw: inout [UInt8]) -> StrictJSON.Problem? {
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
            guard index + 5 < bytes.count, bytes[(index + 2)...(index + 5)].allSatisfy({ Self.isHexDigit($0) }) else {
                return problem("a \\u escape needs four hexadecimal digits", at: index)
            }
            // Keys are compared as written after escapes; \u text is kept as its digits.
            raw.append(contentsOf: bytes[index...(index + 5)])
            index += 6
            return nil
        default:
            return problem("an unknown escape \\\(Unicode.Scalar(escaped)) in a string", at: index)
        }
        index += 2
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Reads a number, true, false or null.
    private mutating func readScalar() -> StrictJSON.Problem? {
        let start = index
        let byte = bytes[index]
        if byte == UInt8(ascii: "-") || Self.isDigit(byte) { return readNumber() }
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
        return problem("not a JSON value (strings take double quotes; true, false and null are lower case)", at: start)
    }

    /// Reads a number: a sign, digits without a leading zero, a fraction, an exponent.
    private mutating func readNumber() -> StrictJSON.Problem? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else {
            return problem("a number needs digits", at: start)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) {
                return problem("a number with a leading zero", at: start)
            }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else {
                return problem("a number needs digits after its decimal point", at: start)
            }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else {
                return problem("a number needs digits in its exponent", at: start)
            }
            skipDigits()
        }
        return nil
    }

    private mutating func skipDigits() {
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    /// Reads `"key" :` in the innermost object, checking it is not a duplicate.
    private mutating func readKey() -> StrictJSON.Problem? {
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
}
