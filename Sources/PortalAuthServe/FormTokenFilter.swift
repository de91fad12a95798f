import PortalAuth

/// Drops every `token` parameter from a form body (`application/x-www-form-urlencoded`) that
/// passes in pieces, as a local proxy streams it: a client's own token never goes on, however a
/// reader upstream might read the name. The body keeps its length (its announced `Content-Length`
/// stays true): each byte of a dropped parameter becomes `&`, an empty parameter that form readers
/// skip.
///
/// A parameter (after `&`, or at the start) is dropped when ``CredentialParameterName`` reads its
/// name as a credential (`token`, `Token[]`, `token.`, `access_token`: the one reading serve's query
/// and whole forms get too), when it is longer than ``CredentialParameterName/longestName``, or
/// when it holds any byte but letters, digits and `_ . - [ ]`: ArcGIS's parameter names are plain,
/// and a percent-encoded, `+` or non-ASCII name is one that readers decode differently (`%74oken`,
/// `%u0074oken`, a Kelvin sign that lowercases to `k`). After a `;` (a separator to some readers),
/// what follows is dropped when it reads as a credential name; else it passes as it is, part of the
/// value before it. Linear; it holds at most one name's bytes (``CredentialParameterName/longestName``).
package final class FormTokenFilter: RequestBodyStream.Transform {
    /// The name being read, until it is known whether to drop it.
    private var name: [UInt8] = []
    /// Whether the current name's fate is decided (then `dropping` says which).
    private var decided = false
    private var dropping = false
    /// Whether the current name follows a `;` (read as a possible parameter, not dropped for its bytes alone).
    private var afterSemicolon = false

    /// The longest name read before it is dropped for its length.
    private static let longestName = CredentialParameterName.longestName
    private static let ampersand: UInt8 = 0x26
    private static let semicolon: UInt8 = 0x3B
    private static let equals: UInt8 = 0x3D

    package init() {}

    package func feed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + Self.longestName)
        for byte in bytes {
            if byte == Self.ampersand || (byte == Self.semicolon && !(decided && dropping)) {
                // A parameter ends; the separator stays.
                if !decided { decide(into: &out) }
                out.append(byte)
                name = []
                decided = false
                dropping = false
                afterSemicolon = byte == Self.semicolon
            } else if decided {
                out.append(dropping ? Self.ampersand : byte)
            } else if byte == Self.equals {  // The name is whole.
                decide(into: &out)
                out.append(dropping ? Self.ampersand : byte)
            } else {
                name.append(byte)
                if !afterSemicolon, !Self.isPlain(byte) {
                    decide(into: &out, dropping: true)
                } else if name.count > Self.longestName {
                    decide(into: &out, dropping: !afterSemicolon)
                }
            }
        }
        return out
    }

    package func end() -> [UInt8] {
        var out: [UInt8] = []
        if !decided { decide(into: &out) }
        return out
    }

    /// Letters, digits, `_`, `.`, `-`, `[`, `]`: the bytes of a name every reader reads alike.
    static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2E, 0x2D, 0x5B, 0x5D: true
        default: false
        }
    }

    /// Decides the current parameter on its name so far: dropped when `dropping` says so or the
    /// name reads as a credential (decoded once, as a form reader decodes it); its name goes out,
    /// or as many `&`. (A name after `;` that is too long to read passes: it is part of a value.)
    private func decide(into out: inout [UInt8], dropping drop: Bool = false) {
        decided = true
        let text = String(decoding: name, as: UTF8.self)
        dropping =
            drop
            || name.count <= Self.longestName
                && CredentialParameterName.isCredential(FormEncoding.decode(text).first?.0 ?? "")
        out += dropping ? [UInt8](repeating: Self.ampersand, count: name.count) : name
    }
}
