import PortalAuth
import PortalAuthServe

extension FuzzTargets {
    /// `/proc/net/tcp` and `tcp6` text (`ProcNetTCP`: lines local users shape by opening sockets):
    /// every listener read has a 4- or 16-byte address and a port that fits in 16 bits, no more
    /// listeners than lines, each written back as the kernel would reads back the same, and the
    /// holders of an address are among the listeners' uids.
    public static func procNetTCP(_ bytes: [UInt8]) {
        let listeners = ProcNetTCP.parse(bytes)
        let lines = bytes.prefix(ProcNetTCP.maximumBytes).split(separator: 0x0A, omittingEmptySubsequences: false)
        precondition(listeners.count <= min(lines.count, ProcNetTCP.maximumLines), "more listeners than lines")
        for listener in listeners {
            precondition(listener.address.count == 4 || listener.address.count == 16, "an address of another size")
            precondition((0...65_535).contains(listener.port), "a port out of range")
            precondition(
                ProcNetTCP.parse(Array(ProcNetTCP.line(listener).utf8)) == [listener],
                "a listener that reads back otherwise")
        }
        if let first = listeners.first {
            let host = first.address.count == 4 ? "127.0.0.1" : "::1"
            let holders = ProcNetTCP.holders(of: LoopbackAddress(host: host, port: first.port), in: listeners)
            precondition(holders.allSatisfy { uid in listeners.contains { $0.uid == uid } }, "a holder not listening")
        }
    }
}
