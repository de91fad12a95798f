import PortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// Whether a `portal-auth serve` answers at a base URL: something accepts connections on its
/// loopback address and port. `serve url` asks it to say, beside the URL it prints, that nothing
/// will answer that URL yet.
enum ServeProbe {
    /// The note for `base` (`http://HOST:PORT/SECRET/`) when nothing listens there, else nil.
    static func notRunningNote(base: String) -> String? {
        guard let (host, port) = hostAndPort(of: base), !isListening(host: host, port: port) else { return nil }
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return "note: portal-auth serve is not running (nothing listens on \(shown)); start it with "
            + "'portal-auth serve' or 'systemctl --user start portal-auth-serve.service'"
    }

    /// The literal host (no brackets) and port of `http://HOST:PORT/...`; nil for anything else.
    static func hostAndPort(of base: String) -> (String, Int)? {
        guard base.hasPrefix("http://") else { return nil }
        let authority = base.dropFirst("http://".count).prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = authority[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), port)
    }

    /// Whether a TCP connection to the loopback `host` (an address literal) and `port` is accepted.
    /// On loopback a connection is accepted or refused at once.
    static func isListening(host: String, port: Int) -> Bool {
        let isIPv6 = host.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return true }  // Cannot tell: say nothing.
        defer { close(fd) }
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return true }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return true }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
