#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The one reading of a URL that decides which credential it gets.
///
/// Every URL that selects a credential is read here, once, and refused when URL readers could
/// disagree about where it goes: libcurl, WHATWG parsers (browsers, Node) and urllib3 (python
/// requests) each read `https://a\@b/`, `https://127.1/` or `/portal/..;/x` their own way, and a
/// token printed for one reading is sent by the tool to another. What is left has one meaning for
/// all of them, and is normalised: lower-case scheme and host, no default port, dot segments
/// removed (RFC 3986 §5.2.4), no fragment.
///
/// Refused: userinfo of any kind, backslashes, spaces and control characters, non-ASCII
/// characters outside the query, percent signs in the authority, encoded `/`, `\`, `.`, control
/// characters or unreserved characters in the path, `;` in a dot segment (Tomcat reads `..;` as
/// `..`), malformed percent escapes, and non-canonical hosts and ports (`127.1`, `0x7f.0.0.1`,
/// `2130706433`, `host.`, `[0:0::1]`, `:08443`, `host:`).
public struct StrictURL: Sendable, Hashable {
    /// `http` or `https`.
    public let scheme: String
    /// The lower-case host; an IPv6 address in its canonical form, without brackets.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int
    /// The percent-encoded path with dot segments removed; empty or starting with `/`.
    public let path: String
    /// The query without its `?`, when there is one.
    public let query: String?

    /// The normalised URL: `scheme://host[:port]path[?query]`.
    public var string: String {
        let defaultPort = scheme == "https" ? 443 : 80
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)\(port == defaultPort ? "" : ":\(port)")\(path)"
            + (query.map { "?" + $0 } ?? "")
    }

    /// The normalised URL as a `URL`.
    public var url: URL { URL(string: string)! }

    /// RFC 3986 §5.2.4: `path` with its `.` and `..` segments resolved.
    package static func removingDotSegments(_ path: String) -> String { Reader.removingDotSegments(path) }

    /// RFC 3986 §5.2.4's own loop, step by step: what ``removingDotSegments(_:)`` must equal.
    package static func removingDotSegmentsStepwise(_ path: String) -> String {
        Reader.removingDotSegmentsStepwise(path)
    }

    /// `url` in its strict reading, normalised; throws as ``parse(_:)`` does.
    public static func normalized(_ url: URL) throws -> URL {
        let text = url.absoluteString
        // A normal form read again is itself (held by the fuzz target URLContext): a URL this
        // function or ``read(_:)`` gave is given back without reading it again.
        if let kept = recentNormalized.kept(text) { return kept }
        return try read(text)
    }

    /// `text` read strictly (``parse(_:)``), as a `URL` in its normal form. A text that is a normal
    /// form this function or ``normalized(_:)`` gave lately is given back without reading it again
    /// (a local proxy reads the same remote URL for every request).
    public static func read(_ text: String) throws -> URL {
        if let kept = recentNormalized.kept(text) { return kept }
        let read = try parse(text)
        let url = read.url
        recentNormalized.keep(read.string, url)
        return url
    }

    /// The last few normal forms given, by their text.
    private static let recentNormalized = RecentReadings<URL>(capacity: 8)

    /// The longest URL read, in bytes (16 KiB): a longer one is refused before it is read. Below
    /// it, reading takes time and memory linear in the URL's length.
    public static let maximumLength = 16 * 1024

    /// Reads `text`, or throws ``PortalAuthError/Code/invalidURL`` naming what makes it ambiguous
    /// (or that it is longer than ``maximumLength``).
    public static func parse(_ text: String) throws -> StrictURL {
        let length = text.utf8.count
        guard length <= maximumLength else { throw tooLong(length) }
        do {
            let read = try Reader(Array(text.utf8)).read()
            // Percent-encoding the query can lengthen it: what is accepted is read again as it is.
            let normalised = read.string.utf8.count
            guard normalised <= maximumLength else { throw tooLong(normalised, encoded: true) }
            return read
        } catch let problem as Problem {
            throw PortalAuthError(
                .invalidURL, "'\(Self.printable(text))' is refused: \(problem.text)", remedy: .checkURL)
        }
    }

    /// The error of a URL of `length` bytes, over ``maximumLength`` (once its query is
    /// percent-encoded, when `encoded`).
    static func tooLong(_ length: Int, encoded: Bool = false) -> PortalAuthError {
        PortalAuthError(
            .invalidURL,
            "a URL of \(length) bytes\(encoded ? " (its query percent-encoded)" : "") is refused: the longest URL "
                + "portal-auth reads is \(maximumLength) bytes (16 KiB)",
            remedy: .checkURL)
    }

    /// The URL for a message: user information and secret parameters redacted, control characters
    /// shown as `\xNN`, at most 200 characters.
    public static func printable(_ text: String) -> String {
        var text = URLRedaction.redact(text)
        let start = text.firstRange(of: "://")?.upperBound ?? text.startIndex
        let authority = text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { text.replaceSubrange(start..<at, with: "***") }
        var result = ""
        for scalar in text.unicodeScalars.prefix(200) {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Why a URL is refused.
    struct Problem: Error { let text: String }
}

extension StrictURL {
    /// Reads a URL's bytes from left to right.
    fileprivate struct Reader {
        let bytes: [UInt8]
        /// A reader of `bytes`.
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func read() throws -> StrictURL {
            guard !bytes.isEmpty else { throw Problem(text: "it is empty") }
            let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
            try checkCharacters(end: end)
            let (scheme, afterScheme) = try readScheme()
            let authorityEnd = bytes[afterScheme..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
            let (host, port) = try Self.readAuthority(Array(bytes[afterScheme..<authorityEnd]), scheme: scheme)
            let rawPath = Array(bytes[authorityEnd..<end])
            try Self.checkPath(rawPath)
            var query: String?
            if end < bytes.count, bytes[end] == UInt8(ascii: "?") {
                let queryEnd = bytes[end...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
                query = try Self.encodedQuery(bytes[(end + 1)..<queryEnd])
            }
            return StrictURL(
                scheme: scheme, host: host, port: port,
                path: Self.removingDotSegments(String(decoding: rawPath, as: UTF8.self)), query: query)
        }

        /// No space or control character anywhere; no backslash and nothing but ASCII before the
        /// query.
        func checkCharacters(end: Int) throws {
            for (index, byte) in bytes.enumerated() {
                if byte <= 0x20 || byte == 0x7F {
                    throw Problem(
                        text: byte == 0x20
                            ? "it contains a space (write it as %20)"
                            : "it contains a control character (byte 0x\(String(byte, radix: 16, uppercase: true).leftPadded(to: 2)))"
                    )
                }
                guard index < end else { continue }
                if byte == UInt8(ascii: "\\") {
                    throw Problem(text: "it contains a backslash, which URL readers take for '/' or for a character")
                }
                if byte >= 0x80 {
                    throw Problem(
                        text:
                            "it contains a non-ASCII character before the query (write the host in punycode and "
                            + "percent-encode the path)"
                    )
                }
            }
        }

        /// `http://` or `https://`, in any case.
        func readScheme() throws -> (String, Int) {
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
                throw Problem(text: "it has no scheme (an absolute URL such as https://host/portal)")
            }
            let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
            guard scheme == "https" || scheme == "http" else {
                throw Problem(text: "it has no http or https scheme (an absolute URL such as https://host/portal)")
            }
            guard bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else { throw Problem(text: "the scheme is not followed by '//' (write \(scheme)://host/...)") }
            return (scheme, colon + 3)
        }

        /// The host and port; no userinfo, no percent sign, a canonical host and port.
        static func readAuthority(_ authority: [UInt8], scheme: String) throws -> (String, Int) {
            guard !authority.isEmpty else { throw Problem(text: "it has no host") }
            if authority.contains(UInt8(ascii: "@")) {
                throw Problem(
                    text: "it has user information before the host (user@ or user:password@), which is never sent")
            }
            if authority.contains(UInt8(ascii: "%")) {
                throw Problem(text: "its host contains a percent sign (a percent-encoded host or an IPv6 zone)")
            }
            let hostBytes: [UInt8]
            let portBytes: [UInt8]?
            if authority.first == UInt8(ascii: "[") {
                guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                    throw Problem(text: "its IPv6 address has no closing ']'")
                }
                hostBytes = Array(authority[1..<close])
                let rest = authority[(close + 1)...]
                guard rest.isEmpty || rest.first == UInt8(ascii: ":") else {
                    throw Problem(text: "something follows the IPv6 address other than a port")
                }
                portBytes = rest.isEmpty ? nil : Array(rest.dropFirst())
                return (try canonicalIPv6(hostBytes), try readPort(portBytes, scheme: scheme))
            }
            let colons = authority.indices.filter { authority[$0] == UInt8(ascii: ":") }
            guard colons.count <= 1 else { throw Problem(text: "its host has more than one ':' (IPv6 goes in [ ])") }
            if let colon = colons.first {
                hostBytes = Array(authority[..<colon])
                portBytes = Array(authority[(colon + 1)...])
            } else {
                hostBytes = authority
                portBytes = nil
            }
            return (try canonicalName(hostBytes), try readPort(portBytes, scheme: scheme))
        }

        /// A host name of letters, digits, `-`, `_` and dots between non-empty labels; when it
        /// ends in a number (as WHATWG reads IPv4), a dotted-quad IPv4 address in its only form.
        static func canonicalName(_ bytes: [UInt8]) throws -> String {
            guard !bytes.isEmpty else { throw Problem(text: "it has no host") }
            guard bytes.count <= 253 else { throw Problem(text: "its host is longer than 253 characters") }
            let allowed = { (b: UInt8) in
                (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                    || isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
            }
            if let odd = bytes.first(where: { !allowed($0) }) {
                throw Problem(text: "its host contains '\(Character(Unicode.Scalar(odd)))'")
            }
            let host = String(decoding: bytes, as: UTF8.self).lowercased()
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            if labels.contains(where: \.isEmpty) {
                throw Problem(text: "its host has an empty label (a leading, doubled or trailing dot)")
            }
            if labels.contains(where: { $0.count > 63 }) {
                throw Problem(text: "a label of its host is over 63 characters")
            }
            if let last = labels.last, endsInANumber(last) {
                let octets = labels.map { label -> Int? in
                    guard label == "0" || (label.first != "0" && label.count <= 3), label.allSatisfy(\.isASCIIDigit)
                    else { return nil }
                    return Int(label)
                }
                guard octets.count == 4, octets.allSatisfy({ ($0 ?? 256) <= 255 }) else {
                    throw Problem(
                        text:
                            "its host '\(host)' is an IPv4 address in a form URL readers read differently (write four "
                            + "decimal numbers, such as 127.0.0.1)"
                    )
                }
            }
            return host
        }

        /// WHATWG's "ends in a number": the last label is all digits, or `0x` and hexadecimal digits.
        static func endsInANumber(_ label: Substring) -> Bool {
            if label.allSatisfy(\.isASCIIDigit) { return true }
            let lower = label.lowercased()
            return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
        }

        /// An IPv6 address as inet_ntop writes it (RFC 5952).
        static func canonicalIPv6(_ bytes: [UInt8]) throws -> String {
            let text = String(decoding: bytes, as: UTF8.self)
            if text.contains(".") {
                throw Problem(
                    text:
                        "its IPv6 address has a dotted IPv4 part, which readers write differently (write it in "
                        + "hexadecimal)"
                )
            }
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else {
                throw Problem(text: "'[\(text)]' is not an IPv6 address")
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else {
                throw Problem(text: "'[\(text)]' is not an IPv6 address")
            }
            let canonical = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard canonical == text.lowercased() else {
                throw Problem(text: "its IPv6 address is not in canonical form (write [\(canonical)])")
            }
            return canonical
        }

        /// A port of 1 to 5 digits without a leading zero, 1 to 65535; the scheme's default when absent.
        static func readPort(_ bytes: [UInt8]?, scheme: String) throws -> Int {
            guard let bytes else { return scheme == "https" ? 443 : 80 }
            guard !bytes.isEmpty else { throw Problem(text: "it has a ':' after the host but no port") }
            guard bytes.count <= 5, bytes.allSatisfy(isDigit), bytes.first != UInt8(ascii: "0"),
                let port = Int(String(decoding: bytes, as: UTF8.self)), port <= 65535
            else {
                throw Problem(
                    text:
                        "its port '\(String(decoding: bytes, as: UTF8.self))' is not a number from 1 to 65535 without "
                        + "leading zeros"
                )
            }
            return port
        }

        /// The query as RFC 3986 writes it: what it allows kept, anything else (`{`, `"`, non-ASCII:
        /// JSON geometry is often typed as it is) percent-encoded, as every reader sends it.
        static func encodedQuery(_ query: ArraySlice<UInt8>) throws -> String {
            var result: [UInt8] = []
            var index = query.startIndex
            while index < query.endIndex {
                let byte = query[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < query.endIndex, hexValue(query[index + 1]) != nil,
                        hexValue(query[index + 2]) != nil
                    else { throw Problem(text: "its query has a '%' that is not followed by two hexadecimal digits") }
                    result.append(byte)
                } else if isPathCharacter(byte) || byte == UInt8(ascii: "?") {
                    result.append(byte)
                } else {
                    result += Array("%\(String(byte, radix: 16, uppercase: true).leftPadded(to: 2))".utf8)
                }
                index += 1
            }
            return String(decoding: result, as: UTF8.self)
        }

        /// RFC 3986's `pchar` and `/`: unreserved, sub-delims, `:`, `@`, `/` (escapes aside).
        static func isPathCharacter(_ byte: UInt8) -> Bool { pathCharacters[Int(byte)] }

        /// ``isPathCharacter(_:)`` of each byte.
        static let pathCharacters: [Bool] = (0...255).map { (value: Int) -> Bool in
            let byte = UInt8(value)
            return isUnreserved(byte) || "!$&'()*+,;=:@/".utf8.contains(byte)
        }

        /// Only RFC 3986 path characters; percent escapes well formed and not for `/`, `\`, `.`, a
        /// control character or an unreserved character; no `;` in a dot segment.
        static func checkPath(_ path: [UInt8]) throws {
            var index = 0
            while index < path.count {
                defer { index += 1 }
                guard path[index] == UInt8(ascii: "%") else {
                    guard isPathCharacter(path[index]) else {
                        throw Problem(
                            text:
                                "its path contains '\(Character(Unicode.Scalar(path[index])))', which must be "
                                + "percent-encoded"
                        )
                    }
                    continue
                }
                guard index + 2 < path.count, let high = hexValue(path[index + 1]), let low = hexValue(path[index + 2])
                else { throw Problem(text: "its path has a '%' that is not followed by two hexadecimal digits") }
                let decoded = high << 4 | low
                let escape = String(decoding: path[index...(index + 2)], as: UTF8.self)
                switch decoded {
                case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "."):
                    throw Problem(
                        text:
                            "its path has an encoded '\(Character(Unicode.Scalar(decoded)))' (\(escape)), which "
                            + "servers read differently"
                    )
                case 0..<0x20, 0x7F:
                    throw Problem(text: "its path has an encoded control character (\(escape))")
                case _ where isUnreserved(decoded):
                    throw Problem(
                        text:
                            "its path has an encoded '\(Character(Unicode.Scalar(decoded)))' (\(escape)): write the "
                            + "character itself"
                    )
                default: break
                }
                index += 2
            }
            for segment in path.split(separator: UInt8(ascii: "/")) {
                guard let semicolon = segment.firstIndex(of: UInt8(ascii: ";")) else { continue }
                let name = segment[segment.startIndex..<semicolon]
                if name.elementsEqual(".".utf8) || name.elementsEqual("..".utf8) {
                    throw Problem(text: "its path has a ';' in a dot segment ('..;' is '..' to Tomcat)")
                }
            }
        }

        /// RFC 3986 §5.2.4: the path with `.` and `..` segments resolved, in one pass over an
        /// absolute path's segments (a relative one, which no URL read here has, takes the RFC's loop).
        static func removingDotSegments(_ path: String) -> String {
            let bytes = Array(path.utf8)
            guard bytes.first == UInt8(ascii: "/") else { return removingDotSegmentsStepwise(path) }
            let segments = bytes[1...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            var output: [ArraySlice<UInt8>] = []
            output.reserveCapacity(segments.count)
            for (index, segment) in segments.enumerated() {
                let isLast = index == segments.count - 1
                let isDot = segment.elementsEqual(CollectionOfOne(UInt8(ascii: ".")))
                let isDotDot = segment.count == 2 && segment.allSatisfy { $0 == UInt8(ascii: ".") }
                if isDotDot, !output.isEmpty { output.removeLast() }
                if isDot || isDotDot {
                    if isLast { output.append([]) }  // `/a/.` and `/a/b/..` end in a slash
                } else {
                    output.append(segment)
                }
            }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            for segment in output {
                result.append(UInt8(ascii: "/"))
                result += segment
            }
            return String(decoding: result, as: UTF8.self)
        }

        /// RFC 3986 §5.2.4's loop, step by step (for a path that does not start with `/`).
        static func removingDotSegmentsStepwise(_ path: String) -> String {
            var input = Substring(path)
            var output: [Substring] = []
            while !input.isEmpty {
                if input.hasPrefix("../") {
                    input = input.dropFirst(3)
                } else if input.hasPrefix("./") {
                    input = input.dropFirst(2)
                } else if input.hasPrefix("/./") {
                    input = input.dropFirst(2)
                } else if input == "/." {
                    input = "/"
                } else if input.hasPrefix("/../") {
                    input = input.dropFirst(3)
                    if !output.isEmpty { output.removeLast() }
                } else if input == "/.." {
                    input = "/"
                    if !output.isEmpty { output.removeLast() }
                } else if input == "." || input == ".." {
                    input = ""
                } else {
                    let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                    let next = input[start...].firstIndex(of: "/") ?? input.endIndex
                    output.append(input[input.startIndex..<next])
                    input = input[next...]
                }
            }
            return output.joined()
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }

        /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
        static func isUnreserved(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
        }
    }
}

extension String {
    /// The string with zeros before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
