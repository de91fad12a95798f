import Foundation

/// The tier's ports on 127.0.0.1, picked free at start.
struct WebTierPorts {
    var selfSigned: Int
    var rotating: Int
    var clientCertificate: Int
    var basic: Int
    var basicPlain: Int
    var digest: Int
    var negotiate: Int
    /// The KDC's, free for both TCP and UDP.
    var kdc: Int

    /// Eight distinct ports that are free right now.
    static func pick() throws -> WebTierPorts {
        let ports = try freePorts(8)
        return WebTierPorts(
            selfSigned: ports[0], rotating: ports[1], clientCertificate: ports[2], basic: ports[3],
            basicPlain: ports[4], digest: ports[5], negotiate: ports[6], kdc: ports[7])
    }
}

/// Picks `count` distinct ports on 127.0.0.1 that are free for both TCP and UDP right now.
func freePorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    var ports: [Int] = []
    var attempts = 0
    while ports.count < count {
        attempts += 1
        if attempts > 200 { throw WebTierError("no free ports on 127.0.0.1") }
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard tcp >= 0 else { throw WebTierError("socket: \(String(cString: strerror(errno)))") }
        sockets.append(tcp)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(tcp, $0, length) == 0 && getsockname(tcp, $0, &length) == 0
            }
        }
        guard bound else { continue }
        // The same number must be free for UDP (the KDC listens on both).
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard udp >= 0 else { continue }
        sockets.append(udp)
        let udpBound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(udp, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if udpBound { ports.append(Int(UInt16(bigEndian: address.sin_port))) }
    }
    return ports
}

/// True when a TCP connection to 127.0.0.1:`port` succeeds.
func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
