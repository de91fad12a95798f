/// Drops every `token` parameter (any case, however percent-encoded) from a form body
/// (`application/x-www-form-urlencoded`) that passes in pieces, as a local proxy streams it: a
/// client's own token never goes on. Linear, and it holds at most one parameter name of 15 bytes
/// (`token` percent-encoded whole): a longer name is passed on at once.
package final class FormTokenFilter: RequestBodyStream.Transform {
    /// The name of the parameter being read, until it is known whether it is `token`.
    private var name: [UInt8] = []
    /// Whether the current parameter's fate is decided (then `dropping` says which).
    private var decided = false
    private var dropping = false
    /// Whether a parameter went out (the next needs a `&`).
    private var wroteAny = false

    /// The longest name that can read as `token` (`%74%6F%6B%65%6E`).
    private static let longestToken = 15

    package init() {}

    package func feed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + Self.longestToken + 1)
        for byte in bytes {
            if byte == 0x26 {  // "&": the parameter ends.
                if !decided { decide(into: &out) }
                name = []
                decided = false
                dropping = false
                continue
            }
            if decided {
                if !dropping { out.append(byte) }
                continue
            }
            if byte == 0x3D {  // "=": the name is whole.
                decide(into: &out)
                if !dropping { out.append(byte) }
                continue
            }
            name.append(byte)
            if name.count > Self.longestToken { decide(into: &out) }
        }
        return out
    }

    package func end() -> [UInt8] {
        var out: [UInt8] = []
        if !decided, !name.isEmpty { decide(into: &out) }
        return out
    }

    /// Decides the current parameter on its name so far: dropped when it reads as `token`, else
    /// its name goes out (after a `&` when another went before).
    private func decide(into out: inout [UInt8]) {
        decided = true
        let text = String(decoding: name, as: UTF8.self)
        dropping = name.count <= Self.longestToken && FormEncoding.decode(text).first?.0.lowercased() == "token"
        guard !dropping else { return }
        if wroteAny { out.append(0x26) }
        out += name
        wroteAny = true
    }
}
