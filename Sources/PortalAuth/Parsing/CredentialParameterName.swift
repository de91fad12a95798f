/// The one reading of a request parameter's name as a credential, for every place a client's
/// parameters are passed on (serve's query, a whole form, a streamed form): a name that any reader
/// upstream would take as a token is a credential name, however it is spelled.
///
/// The readers differ: ArcGIS and ASP.NET read names without regard to case, IIS maps fullwidth
/// and other compatibility characters to ASCII and decodes `%uXXXX` (and may decode twice), C
/// readers stop at a NUL, several frameworks trim spaces, PHP reads `.` and a space as `_` and
/// `name[]` as `name`, and OAuth resource servers read `access_token` (RFC 6750). So a name is
/// read as each of them would and compared with `token` and `access_token`:
/// 1. percent escapes (`%XX`, `%uXXXX`) are decoded once more (the name given is decoded once);
/// 2. a name with any character outside ASCII is a credential name: compatibility mappings
///    (`ｔoken`, the Kelvin sign, circled and mathematical letters) are many and differ between
///    readers, and ArcGIS's parameter names are ASCII;
/// 3. letters are lowered, and the name ends at its first NUL or `[`;
/// 4. `.` and spaces read as `_`, and leading and trailing characters other than letters and digits
///    are dropped (`token.`, `token+`, ` token`).
///
/// Names that only contain the word pass (`tokenType`, `tokens`, `returnToken`): no reader takes
/// them as the token.
public enum CredentialParameterName {
    /// The names, as read, that carry a credential.
    public static let credentialNames: Set<String> = ["token", "access_token"]

    /// The longest name read (in bytes); a longer one is a credential name whatever it says (no
    /// client needs one, and a reader may trim it down to `token`).
    public static let longestName = 256

    /// Whether `name` (already percent-decoded once, as a form reader gives it) is read by some
    /// reader as a credential parameter.
    public static func isCredential(_ name: String) -> Bool {
        // (A name of lower-case letters and digits alone reads as itself: most names, looked up at once.)
        if name.utf8.count <= longestName,
            name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        {
            return credentialNames.contains(name)
        }
        guard name.utf8.count <= longestName, let read = read(name) else { return true }
        return credentialNames.contains(read)
    }

    /// `name` as the most lenient reader reads it (steps 1, 3 and 4 above); nil when it holds a
    /// character outside ASCII (step 2).
    static func read(_ name: String) -> String? {
        var bytes = Array(decodingEscapes(Array(name.utf8)).utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        if let end = bytes.firstIndex(where: { $0 == 0 || $0 == UInt8(ascii: "[") }) { bytes.removeSubrange(end...) }
        let isWord: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
        bytes = bytes.map { byte in
            switch byte {
            case 0x41...0x5A: byte | 0x20
            case UInt8(ascii: "."), UInt8(ascii: " "): UInt8(ascii: "_")
            default: byte
            }
        }
        guard let first = bytes.firstIndex(where: isWord), let last = bytes.lastIndex(where: isWord) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// `bytes` with `%XX` and `%uXXXX` escapes decoded (malformed ones left as they are).
    static func decodingEscapes(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 5 < bytes.count, bytes[i + 1] | 0x20 == UInt8(ascii: "u"),
                let value = hexValue(bytes[(i + 2)...(i + 5)]), let scalar = Unicode.Scalar(value)
            {
                out += Array(String(Character(scalar)).utf8)
                i += 6
            } else if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let value = hexValue(bytes[(i + 1)...(i + 2)])
            {
                out.append(UInt8(value))
                i += 3
            } else {
                out.append(bytes[i] == UInt8(ascii: "+") ? 0x20 : bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(digit - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return value
    }
}
