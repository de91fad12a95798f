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
        func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
        func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                i += 1
            } else if c == "'" {
                var value = String.UnicodeScalarView()
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "'" {
                        if i + 1 < chars.count, chars[i + 1] == "'" {
                            value.append("'")
                            i += 2
                            continue
                        }
                        closed = true
                        i += 1
                        break
                    }
                    value.append(chars[i])
                    i += 1
                }
                guard closed else { throw WhereError(message: "unterminated string literal") }
                tokens.append(.string(String(value)))
            } else if isDigit(c) || (c == "." && i + 1 < chars.count && isDigit(chars[i + 1]))
                || (c == "-" && i + 1 < chars.count && (isDigit(chars[i + 1]) || chars[i + 1] == ".")
                    && !Self.endsOperand(tokens))
            {
                var text = String.UnicodeScalarView()
                if c == "-" { text.append(c); i += 1 }
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
                tokens.append(.number(value))
            } else if isWordStart(c) {
                var word = String.UnicodeScalarView()
                while i < chars.count, isWordStart(chars[i]) || isDigit(chars[i]) {
                    word.append(chars[i])
                    i += 1
                }
                tokens.append(.word(String(word)))
            } else if c == "\"" {
                // A quoted identifier: "UseType".
                var word = String.UnicodeScalarView()
                i += 1
                while i < chars.count, chars[i] != "\"" {
                    word.append(chars[i])
                    i += 1
                }
                guard i < chars.count else { throw WhereError(message: "unterminated quoted identifier") }
                i += 1
                tokens.append(.word(String(word)))
            } else {
                let next = i + 1 < chars.count ? chars[i + 1] : " "
                switch (c, next) {
                case ("<", ">"), ("<", "="), (">", "="), ("!", "="):
                    tokens.append(.symbol(String(c) + String(next)))
                    i += 2
                case ("=", _), ("<", _), (">", _), ("(", _), (")", _), (",", _):
                    tokens.append(.symbol(String(c)))
                    i += 1
                default:
                    throw WhereError(message: "unexpected character '\(c)'")
                }
            }
        }
        return tokens
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
