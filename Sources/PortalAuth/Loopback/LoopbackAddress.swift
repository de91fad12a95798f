#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An address on this machine's loopback interface to listen on: `127.x.y.z` or `::1`, and a
/// port (0: a free one). Nothing else is accepted, so a local server is never reachable from
/// the network.
public struct LoopbackAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address literal, without brackets (`127.0.0.1`, `::1`).
    public private(set) var host: String
    /// The port; 0 picks a free one when bound.
    public private(set) var port: Int

    /// Whether the address is IPv6 (`::1`).
    public var isIPv6: Bool { host.contains(":") }

    /// `127.0.0.1:8080` or `[::1]:8080`, as it goes into a URL.
    public var description: String { "\(authority(port: port))" }

    /// `HOST:PORT` with an IPv6 host in brackets.
    public func authority(port: Int) -> String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The address `host` and `port`, unchecked (``parse(_:defaultPort:)`` checks that the host is
    /// loopback: a program's way in).
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`, `[::1]:PORT` or `localhost:PORT` (a host alone takes `defaultPort`);
    /// an address that is not loopback, or not an address, is an `invalidArgument` error.
    public static func parse(_ text: String, defaultPort: Int) throws -> LoopbackAddress {
        let (host, portText) = split(text)
        var port = defaultPort
        if let portText {
            guard let value = Int(portText), (0...65_535).contains(value), portText.allSatisfy(\.isASCII) else {
                throw PortalAuthError(.invalidArgument, "'\(text)' has no valid port (0 to 65535)")
            }
            port = value
        }
        let literal = host.lowercased() == "localhost" ? "127.0.0.1" : host
        guard isLoopback(literal) else {
            throw PortalAuthError(
                .invalidArgument,
                "'\(host)' is not a loopback address: only 127.0.0.0/8 and ::1 (or localhost) are accepted, so that "
                    + "nothing on the network can reach it")
        }
        return LoopbackAddress(host: literal, port: port)
    }

    /// The host and the port text (nil when none).
    private static func split(_ text: String) -> (String, String?) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            return (host, rest.hasPrefix(":") ? String(rest.dropFirst()) : (rest.isEmpty ? nil : String(rest)))
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            return (String(text[..<colon]), String(text[text.index(after: colon)...]))
        }
        return (text, nil)
    }

    /// Whether `literal` is an IPv4 address in 127.0.0.0/8 or the IPv6 address ::1.
    public static func isLoopback(_ literal: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
    }
}
