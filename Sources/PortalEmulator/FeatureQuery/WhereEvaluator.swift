/// Evaluates a parsed where clause against a parcel with SQL three-valued logic:
/// anything compared with NULL is unknown, and only rows where the clause is true match.
enum WhereEvaluator {
    /// True when the parcel satisfies the clause.
    static func matches(_ expression: WhereExpression, _ parcel: Parcel) -> Bool {
        evaluate(expression, parcel) == true
    }

    static func evaluate(_ expression: WhereExpression, _ parcel: Parcel) -> Bool? {
        switch expression {
        case .and(let a, let b):
            let x = evaluate(a, parcel), y = evaluate(b, parcel)
            if x == false || y == false { return false }
            return x == true && y == true ? true : nil
        case .or(let a, let b):
            let x = evaluate(a, parcel), y = evaluate(b, parcel)
            if x == true || y == true { return true }
            return x == false && y == false ? false : nil
        case .not(let a):
            return evaluate(a, parcel).map { !$0 }
        case .compare(let a, let op, let b):
            guard let order = compare(value(a, parcel), value(b, parcel)) else { return nil }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            }
        case .like(let a, let p, let negated):
            guard case .string(let text) = value(a, parcel), case .string(let pattern) = value(p, parcel) else {
                return nil
            }
            let result = like(Array(text), Array(pattern))
            return negated ? !result : result
        case .inList(let a, let items, let negated):
            let left = value(a, parcel)
            var sawUnknown = false
            for item in items {
                switch compare(left, value(item, parcel)) {
                case 0?: return !negated
                case nil: sawUnknown = true
                default: continue
                }
            }
            return sawUnknown ? nil : negated
        case .isNull(let a, let negated):
            let isNull = value(a, parcel) == .null
            return negated ? !isNull : isNull
        case .between(let a, let low, let high, let negated):
            let v = value(a, parcel)
            guard let lowOrder = compare(v, value(low, parcel)), let highOrder = compare(v, value(high, parcel)) else {
                return nil
            }
            let inside = lowOrder >= 0 && highOrder <= 0
            return negated ? !inside : inside
        }
    }

    static func value(_ operand: WhereOperand, _ parcel: Parcel) -> SQLValue {
        switch operand {
        case .field(let field): return parcel.value(field)
        case .literal(let literal): return literal
        case .upper(let inner):
            if case .string(let s) = value(inner, parcel) { return .string(s.uppercased()) }
            return .null
        case .lower(let inner):
            if case .string(let s) = value(inner, parcel) { return .string(s.lowercased()) }
            return .null
        }
    }

    /// -1, 0, 1; nil when either side is NULL or the types differ.
    static func compare(_ a: SQLValue, _ b: SQLValue) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        default: return nil
        }
    }

    /// SQL LIKE: `%` any run of characters, `_` exactly one; case-sensitive.
    static func like(_ text: [Character], _ pattern: [Character]) -> Bool {
        // Iterative wildcard matching with backtracking to the last '%'.
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "_" || (pattern[p] != "%" && pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == "%" {
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "%" { p += 1 }
        return p == pattern.count
    }
}
