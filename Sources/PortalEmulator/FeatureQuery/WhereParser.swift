/// A value expression in a where clause.
indirect enum WhereOperand: Sendable, Equatable {
    case field(ParcelField)
    case literal(SQLValue)
    case upper(WhereOperand)
    case lower(WhereOperand)

    /// The static type: true numeric, false string, nil for the NULL literal.
    var isNumeric: Bool? {
        switch self {
        case .field(let field): return field.isNumeric
        case .literal(.null): return nil
        case .literal(.number): return true
        case .literal(.string): return false
        case .upper, .lower: return false
        }
    }
}

/// Comparison operators.
enum WhereComparison: String, Sendable, Equatable {
    case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

/// A parsed where clause.
indirect enum WhereExpression: Sendable, Equatable {
    case and(WhereExpression, WhereExpression)
    case or(WhereExpression, WhereExpression)
    case not(WhereExpression)
    case compare(WhereOperand, WhereComparison, WhereOperand)
    case like(WhereOperand, WhereOperand, negated: Bool)
    case inList(WhereOperand, [WhereOperand], negated: Bool)
    case isNull(WhereOperand, negated: Bool)
    case between(WhereOperand, WhereOperand, WhereOperand, negated: Bool)
}

/// A recursive-descent parser for the SQL-92 subset ArcGIS `where` clauses use:
/// comparisons, LIKE, IN, BETWEEN, IS [NOT] NULL, AND/OR/NOT, parentheses, UPPER/LOWER.
struct WhereParser {
    private var tokens: [WhereToken]
    private var position = 0

    /// Parses a complete where clause.
    static func parse(_ text: String) throws(WhereError) -> WhereExpression {
        var parser = WhereParser(tokens: try WhereLexer.tokens(text))
        guard !parser.tokens.isEmpty else { throw WhereError(message: "empty where clause") }
        let expression = try parser.orExpression()
        if let extra = parser.peek { throw WhereError(message: "unexpected \(Self.describe(extra))") }
        return expression
    }

    private init(tokens: [WhereToken]) { self.tokens = tokens }

    private var peek: WhereToken? { position < tokens.count ? tokens[position] : nil }

    private mutating func next() throws(WhereError) -> WhereToken {
        guard let token = peek else { throw WhereError(message: "unexpected end of where clause") }
        position += 1
        return token
    }

    private mutating func accept(keyword: String) -> Bool {
        if peek?.isKeyword(keyword) == true { position += 1; return true }
        return false
    }

    private mutating func accept(symbol: String) -> Bool {
        if peek == .symbol(symbol) { position += 1; return true }
        return false
    }

    private mutating func expect(symbol: String) throws(WhereError) {
        guard accept(symbol: symbol) else {
            throw WhereError(message: "expected '\(symbol)' but found \(peek.map(Self.describe) ?? "end of clause")")
        }
    }

    private mutating func orExpression() throws(WhereError) -> WhereExpression {
        var left = try andExpression()
        while accept(keyword: "OR") { left = .or(left, try andExpression()) }
        return left
    }

    private mutating func andExpression() throws(WhereError) -> WhereExpression {
        var left = try notExpression()
        while accept(keyword: "AND") { left = .and(left, try notExpression()) }
        return left
    }

    private mutating func notExpression() throws(WhereError) -> WhereExpression {
        if accept(keyword: "NOT") { return .not(try notExpression()) }
        return try predicate()
    }

    private mutating func predicate() throws(WhereError) -> WhereExpression {
        if accept(symbol: "(") {
            let inner = try orExpression()
            try expect(symbol: ")")
            return inner
        }
        let left = try operand()
        if case .symbol(let symbol)? = peek, let op = Self.comparison(symbol) {
            position += 1
            let right = try operand()
            try Self.checkComparable(left, right)
            return .compare(left, op, right)
        }
        if accept(keyword: "IS") {
            let negated = accept(keyword: "NOT")
            guard accept(keyword: "NULL") else { throw WhereError(message: "expected NULL after IS") }
            return .isNull(left, negated: negated)
        }
        let negated = accept(keyword: "NOT")
        if accept(keyword: "LIKE") {
            let pattern = try operand()
            guard left.isNumeric != true, pattern.isNumeric != true else {
                throw WhereError(message: "LIKE needs string operands")
            }
            return .like(left, pattern, negated: negated)
        }
        if accept(keyword: "IN") {
            try expect(symbol: "(")
            var items = [try operand()]
            while accept(symbol: ",") { items.append(try operand()) }
            try expect(symbol: ")")
            for item in items { try Self.checkComparable(left, item) }
            return .inList(left, items, negated: negated)
        }
        if accept(keyword: "BETWEEN") {
            let low = try operand()
            guard accept(keyword: "AND") else { throw WhereError(message: "expected AND in BETWEEN") }
            let high = try operand()
            try Self.checkComparable(left, low)
            try Self.checkComparable(left, high)
            return .between(left, low, high, negated: negated)
        }
        throw WhereError(
            message:
                "expected an operator after \(Self.describe(left)) but found \(peek.map(Self.describe) ?? "end of clause")"
        )
    }

    private mutating func operand() throws(WhereError) -> WhereOperand {
        switch try next() {
        case .number(let value): return .literal(.number(value))
        case .string(let value): return .literal(.string(value))
        case .symbol(let symbol): throw WhereError(message: "unexpected '\(symbol)'")
        case .word(let word):
            let upper = word.uppercased()
            if upper == "NULL" { return .literal(.null) }
            if upper == "UPPER" || upper == "LOWER", accept(symbol: "(") {
                let inner = try operand()
                try expect(symbol: ")")
                guard inner.isNumeric != true else { throw WhereError(message: "\(upper) needs a string") }
                return upper == "UPPER" ? .upper(inner) : .lower(inner)
            }
            if Self.reserved.contains(upper) { throw WhereError(message: "unexpected keyword \(upper)") }
            guard let field = ParcelField.named(word) else { throw WhereError(message: "unknown field '\(word)'") }
            return .field(field)
        }
    }

    private static let reserved: Set<String> = ["AND", "OR", "NOT", "LIKE", "IN", "IS", "BETWEEN", "UPPER", "LOWER"]

    private static func comparison(_ symbol: String) -> WhereComparison? {
        switch symbol {
        case "=": return .equal
        case "<>", "!=": return .notEqual
        case "<": return .less
        case "<=": return .lessOrEqual
        case ">": return .greater
        case ">=": return .greaterOrEqual
        default: return nil
        }
    }

    private static func checkComparable(_ a: WhereOperand, _ b: WhereOperand) throws(WhereError) {
        if let x = a.isNumeric, let y = b.isNumeric, x != y {
            throw WhereError(message: "cannot compare \(describe(a)) with \(describe(b))")
        }
    }

    private static func describe(_ token: WhereToken) -> String {
        switch token {
        case .word(let w): return "'\(w)'"
        case .number(let n): return "\(n)"
        case .string(let s): return "'\(s)'"
        case .symbol(let s): return "'\(s)'"
        }
    }

    private static func describe(_ operand: WhereOperand) -> String {
        switch operand {
        case .field(let f): return f.rawValue
        case .literal(.null): return "NULL"
        case .literal(.number(let n)): return JSONValue.format(n)
        case .literal(.string(let s)): return "'\(s)'"
        case .upper(let inner): return "UPPER(\(describe(inner)))"
        case .lower(let inner): return "LOWER(\(describe(inner)))"
        }
    }
}
