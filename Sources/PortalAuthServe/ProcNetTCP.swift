public import PortalAuth

#if canImport(Glibc)
import Glibc
#endif

/// Who listens on a TCP port of this machine: the listening sockets of `/proc/net/tcp` and
/// `/proc/net/tcp6`, with the uid that owns each. When a local server cannot bind its port, this
/// tells another user's listener (which may have received every URL given out for the port) from
/// one of this user's own.
///
/// The files are the kernel's, but their lines describe sockets that any local user opens, so
/// they are read as untrusted: at most ``maximumBytes`` per file and ``maximumLines`` lines, each
/// line once, fields checked strictly (a line that is not exactly what the kernel writes is
/// skipped). The kernel lists listening sockets before connections, so a flood of connections
/// cannot push a listener past the bounds.
public enum ProcNetTCP {
    /// A socket in the listening state (`st` 0A).
    package struct Listener: Sendable, Equatable {
        /// The local address in network order: 4 bytes (tcp) or 16 (tcp6).
        package var address: [UInt8]
        /// The local port.
        package var port: Int
        /// The uid that owns the socket.
        package var uid: UInt32

        package init(address: [UInt8], port: Int, uid: UInt32) {
            self.address = address
            self.port = port
            self.uid = uid
        }
    }

    /// The most bytes read of one file.
    package static let maximumBytes = 4 << 20
    /// The most lines read of one file.
    package static let maximumLines = 32_768
    /// The files read by ``holders(of:)``.
    package static let files = ["/proc/net/tcp", "/proc/net/tcp6"]

    /// The uids of the sockets listening where a bind of `address` conflicts: its own address, the
    /// wildcard of either family, or (IPv4) its IPv4-mapped IPv6 form, on its port. Empty when
    /// none is found (the files cannot be read, or the listener left).
    public static func holders(of address: LoopbackAddress) -> [UInt32] {
        let listeners = files.flatMap { path in readBounded(path).map { parse($0) } ?? [] }
        return holders(of: address, in: listeners)
    }

    /// The uids of `listeners` whose bind conflicts with `address`, each once, in order.
    package static func holders(of address: LoopbackAddress, in listeners: [Listener]) -> [UInt32] {
        guard let wanted = networkBytes(address.host) else { return [] }
        let mapped = wanted.count == 4 ? [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + wanted : nil
        var uids: [UInt32] = []
        for listener in listeners where listener.port == address.port {
            let conflicts =
                listener.address == wanted || listener.address == mapped || listener.address.allSatisfy { $0 == 0 }
            if conflicts, !uids.contains(listener.uid) { uids.append(listener.uid) }
        }
        return uids
    }

    /// The listening sockets of one file's text (`tcp` or `tcp6`): the header and every line
    /// that is not a well-formed listening entry are skipped; bytes past ``maximumBytes`` and
    /// lines past ``maximumLines`` are not looked at.
    package static func parse(_ bytes: [UInt8]) -> [Listener] {
        var listeners: [Listener] = []
        var lineStart = 0
        var lines = 0
        let end = min(bytes.count, maximumBytes)
        while lineStart < end, lines < maximumLines {
            var lineEnd = lineStart
            while lineEnd < end, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            if let listener = parseLine(bytes[lineStart..<lineEnd]) { listeners.append(listener) }
            lines += 1
            lineStart = lineEnd + 1
        }
        return listeners
    }

    /// One line: `sl: LOCAL REMOTE st tx:rx tr:when retrnsmt uid ...`, or nil.
    private static func parseLine(_ line: ArraySlice<UInt8>) -> Listener? {
        // The first eight fields, split on spaces; the rest of the line is not needed.
        var fields: [ArraySlice<UInt8>] = []
        var index = line.startIndex
        while index < line.endIndex, fields.count < 8 {
            while index < line.endIndex, line[index] == 0x20 { index += 1 }
            let start = index
            while index < line.endIndex, line[index] != 0x20 { index += 1 }
            if start < index { fields.append(line[start..<index]) }
        }
        guard fields.count == 8, fields[0].last == UInt8(ascii: ":"), Array(fields[3]) == Array("0A".utf8),
            let colon = fields[1].firstIndex(of: UInt8(ascii: ":")),
            let address = addressBytes(fields[1][..<colon]),
            let port = hexValue(fields[1][(colon + 1)...], digits: 4), let uid = decimalUID(fields[7])
        else { return nil }
        return Listener(address: address, port: Int(port), uid: uid)
    }

    /// The kernel's address: 8 hex digits (tcp) or 32 (tcp6), each group of 8 a 32-bit word as
    /// this machine stores it; the bytes in network order.
    private static func addressBytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count == 8 || text.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var start = text.startIndex
        while start < text.endIndex {
            guard let word = hexValue(text[start..<(start + 8)], digits: 8) else { return nil }
            withUnsafeBytes(of: UInt32(word)) { bytes.append(contentsOf: $0) }
            start += 8
        }
        return bytes
    }

    /// Exactly `digits` upper- or lower-case hex digits, or nil.
    private static func hexValue(_ text: ArraySlice<UInt8>, digits: Int) -> UInt64? {
        guard text.count == digits else { return nil }
        var value: UInt64 = 0
        for byte in text {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// A uid: 1 to 10 decimal digits, at most `UInt32.max`.
    private static func decimalUID(_ text: ArraySlice<UInt8>) -> UInt32? {
        guard (1...10).contains(text.count) else { return nil }
        var value: UInt64 = 0
        for byte in text {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value <= UInt64(UInt32.max) ? UInt32(value) : nil
    }

    /// The address literal's bytes in network order (4 or 16), or nil.
    private static func networkBytes(_ literal: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: &v6) { Array($0) }
    }

    /// At most ``maximumBytes`` of the file at `path`, or nil when it cannot be opened.
    private static func readBounded(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < maximumBytes {
            let count = read(fd, &buffer, min(buffer.count, maximumBytes - bytes.count))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    /// The line the kernel would write for `listener` (tcp or tcp6 by its address), for tests.
    package static func line(_ listener: Listener, slot: Int = 0) -> String {
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        var address = ""
        var start = 0
        while start + 4 <= listener.address.count {
            let word = listener.address[start..<(start + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            address += hex(UInt64(word), 8)
            start += 4
        }
        let zeros = String(repeating: "0", count: address.count)
        return "\(String(repeating: " ", count: max(0, 4 - String(slot).count)))\(slot): \(address):"
            + "\(hex(UInt64(listener.port), 4)) \(zeros):0000 0A 00000000:00000000 00:00000000 00000000 "
            + "\(listener.uid)        0 12345 1 0000000000000000 100 0 0 10 0"
    }
}
