/// A syntax or type error in a where clause.
struct WhereError: Error, Sendable, Equatable {
    /// What is wrong, for the error's details.
    let message: String
}

/// One lexical token of a where clause.
enum WhereToken: Sendable, Equatable {
    /// A field name, keyword or function name (as written).
    case word(String)
    /// A numeric literal.
    case number(Double)
    /// A string literal, quotes removed and `''` unescaped.
    case string(String)
    /// `=`, `<>`, `!=`, `<`, `<=`, `>`, `>=`, `(`, `)`, `,`
    case symbol(String)

    /// True for the keyword `word`, ignoring case.
    func isKeyword(_ word: String) -> Bool {
        if case .word(let w) = self { return w.uppercased() == word }
        return false
    }
}

/// Splits a where clause into tokens.
enum WhereLexer {
    static func tokens(_ text: String) throws(WhereError) -> [WhereToken] {
        let chars = Array(text.unicodeScalars)
        var tokens: [WhereToken] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                i += 1
            } else if c == "'" {
                tokens.append(try stringLiteral(chars, at: &i))
            } else if startsNumber(chars, at: i, after: tokens) {
                tokens.append(try number(chars, at: &i))
            } else if isWordStart(c) {
                tokens.append(word(chars, at: &i))
            } else if c == "\"" {
                tokens.append(try quotedIdentifier(chars, at: &i))
            } else {
                tokens.append(try symbol(chars, at: &i))
            }
        }
        return tokens
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
    private static func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }

    /// The string literal that starts at `i` (a `'`), with `''` read as one quote; moves `i` past it.
    private static func stringLiteral(_ chars: [Unicode.Scalar], at i: inout Int) throws(WhereError) -> WhereToken {
        var value = String.UnicodeScalarView()
        i += 1
        while i < chars.count {
            if chars[i] == "'" {
                if i + 1 < chars.count, chars[i + 1] == "'" {
                    value.append("'")
                    i += 2
                    continue
                }
                i += 1
                return .string(String(value))
            }
            value.append(chars[i])
            i += 1
        }
        throw WhereError(message: "unterminated string literal")
    }

    /// Whether a number starts at `i`: a digit, `.` and a digit, or a `-` sign before one where
    /// `tokens` so far do not end an operand (else the `-` is an operator).
    private static func startsNumber(_ chars: [Unicode.Scalar], at i: Int, after tokens: [WhereToken]) -> Bool {
        let c = chars[i]
        let hasNext = i + 1 < chars.count
        return isDigit(c) || (c == "." && hasNext && isDigit(chars[i + 1]))
            || (c == "-" && hasNext && (isDigit(chars[i + 1]) || chars[i + 1] == ".") && !endsOperand(tokens))
    }

    /// The numeric literal that starts at `i` (digits, one `.`, an exponent); moves `i` past it.
    private static func number(_ chars: [Unicode.Scalar], at i: inout Int) throws(WhereError) -> WhereToken {
        var text = String.UnicodeScalarView()
        if chars[i] == "-" {
            text.append(chars[i])
            i += 1
        }
        var seenDot = false
        var seenExponent = false
        while i < chars.count {
            let d = chars[i]
            if isDigit(d) {
                text.append(d)
            } else if d == ".", !seenDot, !seenExponent {
                seenDot = true
                text.append(d)
            } else if d == "e" || d == "E", !seenExponent {
                seenExponent = true
                text.append(d)
                if i + 1 < chars.count, chars[i + 1] == "-" || chars[i + 1] == "+" {
                    i += 1
                    text.append(chars[i])
                }
            } else {
                break
            }
            i += 1
        }
        guard let value = Double(String(text)) else { throw WhereError(message: "invalid number '\(text)'") }
        if i < chars.count, isWordStart(chars[i]) {
            throw WhereError(message: "invalid number '\(text)\(chars[i])'")
        }
        return .number(value)
    }

    /// The field name, keyword or function name that starts at `i`; moves `i` past it.
    private static func word(_ chars: [Unicode.Scalar], at i: inout Int) -> WhereToken {
        var word = String.UnicodeScalarView()
        while i < chars.count, isWordStart(chars[i]) || isDigit(chars[i]) {
            word.append(chars[i])
            i += 1
        }
        return .word(String(word))
    }

    /// The quoted identifier (`"UseType"`) that starts at `i`; moves `i` past it.
    private static func quotedIdentifier(_ chars: [Unicode.Scalar], at i: inout Int) throws(WhereError) -> WhereToken {
        var word = String.UnicodeScalarView()
        i += 1
        while i < chars.count, chars[i] != "\"" {
            word.append(chars[i])
            i += 1
        }
        guard i < chars.count else { throw WhereError(message: "unterminated quoted identifier") }
        i += 1
        return .word(String(word))
    }

    /// The operator or punctuation (`=`, `<>`, `!=`, `<`, `<=`, `>`, `>=`, `(`, `)`, `,`) at `i`;
    /// moves `i` past it.
    private static func symbol(_ chars: [Unicode.Scalar], at i: inout Int) throws(WhereError) -> WhereToken {
        let c = chars[i]
        let next = i + 1 < chars.count ? chars[i + 1] : " "
        switch (c, next) {
        case ("<", ">"), ("<", "="), (">", "="), ("!", "="):
            i += 2
            return .symbol(String(c) + String(next))
        case ("=", _), ("<", _), (">", _), ("(", _), (")", _), (",", _):
            i += 1
            return .symbol(String(c))
        default:
            throw WhereError(message: "unexpected character '\(c)'")
        }
    }

    /// True when the previous token ends an operand, so a following '-' is not a sign.
    private static func endsOperand(_ tokens: [WhereToken]) -> Bool {
        switch tokens.last {
        case .number?, .string?, .symbol(")")?: return true
        case .word(let w)?:
            return !["AND", "OR", "NOT", "LIKE", "IN", "BETWEEN", "IS"].contains(w.uppercased())
        default: return false
        }
    }
}
