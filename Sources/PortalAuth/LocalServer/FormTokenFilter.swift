/// Drops every `token` parameter (any case, however percent-encoded) from a form body
/// (`application/x-www-form-urlencoded`) that passes in pieces, as a local proxy streams it: a
/// client's own token never goes on. The body keeps its length (its announced `Content-Length`
/// stays true): each byte of a dropped parameter becomes `&`, an empty parameter that form readers
/// skip. Linear, and it holds at most one parameter name of 15 bytes (`token` percent-encoded
/// whole): a longer name is passed on at once.
package final class FormTokenFilter: RequestBodyStream.Transform {
    /// The name of the parameter being read, until it is known whether it is `token`.
    private var name: [UInt8] = []
    /// Whether the current parameter's fate is decided (then `dropping` says which).
    private var decided = false
    private var dropping = false

    /// The longest name that can read as `token` (`%74%6F%6B%65%6E`).
    private static let longestToken = 15
    private static let ampersand: UInt8 = 0x26

    package init() {}

    package func feed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + Self.longestToken)
        for byte in bytes {
            if byte == Self.ampersand {  // The parameter ends; the separator stays.
                if !decided { decide(into: &out) }
                out.append(byte)
                name = []
                decided = false
                dropping = false
            } else if decided {
                out.append(dropping ? Self.ampersand : byte)
            } else if byte == 0x3D {  // "=": the name is whole.
                decide(into: &out)
                out.append(dropping ? Self.ampersand : byte)
            } else {
                name.append(byte)
                if name.count > Self.longestToken { decide(into: &out) }
            }
        }
        return out
    }

    package func end() -> [UInt8] {
        var out: [UInt8] = []
        if !decided { decide(into: &out) }
        return out
    }

    /// Decides the current parameter on its name so far: dropped when it reads as `token`; its
    /// name goes out, or as many `&`.
    private func decide(into out: inout [UInt8]) {
        decided = true
        let text = String(decoding: name, as: UTF8.self)
        dropping = name.count <= Self.longestToken && FormEncoding.decode(text).first?.0.lowercased() == "token"
        out += dropping ? [UInt8](repeating: Self.ampersand, count: name.count) : name
    }
}
