import Foundation
import PortalAuth
import PortalAuthServe
import Testing

@testable import portal_auth

/// Who holds a port (`ProcNetTCP`, read from `/proc/net/tcp` and `tcp6`, lines any local user
/// shapes by opening sockets) and what `serve` makes of it (`ServeListener`), without a socket.
@Suite struct ProcNetTCPTests {
    /// The kernel's own lines: a header, 127.0.0.1:47080 (B7E8) listening as uid 1001, a
    /// connection (st 01) as uid 0, 0.0.0.0:22 listening as uid 0.
    static let tcp = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:B7E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 28234 1 0000000000000000 100 0 0 10 0
           1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1822 1 0000000000000000 100 0 0 10 0
           2: 0100007F:B7E8 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 20 4 30 10 -1
        """
    /// ::1 port 47080 as uid 1002, and ::ffff:127.0.0.1 port 8080 as uid 1003.
    static let tcp6 = """
          sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 00000000000000000000000001000000:B7E8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1002        0 1 1 0000000000000000 100 0 0 10 0
           1: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1003        0 1 1 0000000000000000 100 0 0 10 0
        """

    private func parse(_ text: String) -> [ProcNetTCP.Listener] { ProcNetTCP.parse(Array(text.utf8)) }

    @Test func theKernelsLinesGiveEachListenerItsAddressPortAndUID() {
        #expect(
            parse(Self.tcp) == [
                .init(address: [127, 0, 0, 1], port: 47080, uid: 1001), .init(address: [0, 0, 0, 0], port: 22, uid: 0),
            ])
        let v6 = parse(Self.tcp6)
        #expect(v6.map(\.uid) == [1002, 1003])
        #expect(v6.first?.address == [UInt8](repeating: 0, count: 15) + [1])
        #expect(v6.last?.address == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1])
    }

    @Test func theHoldersOfAnAddressAreItsOwnTheWildcardAndTheMappedForm() throws {
        let listeners = parse(Self.tcp) + parse(Self.tcp6)
        let v4 = try LoopbackAddress.parse("127.0.0.1:47080", defaultPort: 0)
        #expect(ProcNetTCP.holders(of: v4, in: listeners) == [1001])
        #expect(
            ProcNetTCP.holders(of: try LoopbackAddress.parse("[::1]:47080", defaultPort: 0), in: listeners) == [1002])
        #expect(ProcNetTCP.holders(of: try LoopbackAddress.parse("127.0.0.2:22", defaultPort: 0), in: listeners) == [0])
        #expect(
            ProcNetTCP.holders(of: try LoopbackAddress.parse("127.0.0.1:8080", defaultPort: 0), in: listeners) == [1003]
        )
        #expect(
            ProcNetTCP.holders(of: try LoopbackAddress.parse("127.0.0.2:47080", defaultPort: 0), in: listeners) == [])
        // A connection (not listening) on the port holds nothing.
        #expect(
            ProcNetTCP.holders(of: try LoopbackAddress.parse("127.0.0.1:53999", defaultPort: 0), in: listeners) == [])
    }

    @Test func aLineThatIsNotExactlyTheKernelsIsSkipped() {
        let good = ProcNetTCP.line(.init(address: [127, 0, 0, 1], port: 47080, uid: 1001))
        #expect(parse(good) == [.init(address: [127, 0, 0, 1], port: 47080, uid: 1001)])
        for bad in [
            good.replacingOccurrences(of: "0100007F:B7E8", with: "0100007G:B7E8"),
            good.replacingOccurrences(of: "0100007F:B7E8", with: "100007F:B7E8"),
            good.replacingOccurrences(of: "0100007F:B7E8", with: "0100007F:7E8"),
            good.replacingOccurrences(of: "0100007F:B7E8", with: "0100007F"),
            good.replacingOccurrences(of: " 0A ", with: " 0a0 "),
            good.replacingOccurrences(of: " 1001 ", with: " 4294967296 "),
            good.replacingOccurrences(of: " 1001 ", with: " -1 "),
            good.replacingOccurrences(of: " 1001 ", with: " 1e3 "),
            good.replacingOccurrences(of: "   0: ", with: "   0 "),
            String(good.prefix(60)), "", "\n\n\n", String(repeating: " ", count: 5000),
        ] {
            #expect(parse(bad) == [], "\(bad)")
        }
        // The largest uid is read.
        #expect(parse(good.replacingOccurrences(of: " 1001 ", with: " 4294967295 ")).first?.uid == UInt32.max)
    }

    @Test func theBytesAndLinesReadAreBounded() {
        // (Padded with spaces, as the kernel pads its lines, so that the bytes bound comes first.)
        let line =
            ProcNetTCP.line(.init(address: [127, 0, 0, 1], port: 1, uid: 7)) + String(repeating: " ", count: 80)
            + "\n"
        #expect(ProcNetTCP.maximumBytes / line.utf8.count < ProcNetTCP.maximumLines)
        let whole = ProcNetTCP.maximumBytes / line.utf8.count
        // Past the bytes bound: the lines in it (and perhaps the one it cuts) are read, no more.
        let many = ProcNetTCP.parse(Array(String(repeating: line, count: whole + 100).utf8)).count
        #expect(many == whole || many == whole + 1, "\(many) of \(whole)")
        // Past the lines bound: a listener after that many empty lines is not looked at.
        let late = String(repeating: "\n", count: ProcNetTCP.maximumLines) + line
        #expect(parse(late) == [])
        #expect(parse(String(repeating: "\n", count: ProcNetTCP.maximumLines - 1) + line).count == 1)
        // One line of 8 MiB without a newline: read up to the bound, nothing found, no hang.
        #expect(ProcNetTCP.parse([UInt8](repeating: UInt8(ascii: "A"), count: 8 << 20)) == [])
    }

    @Test func everyWrittenLineReadsBack() {
        for listener in [
            ProcNetTCP.Listener(address: [127, 1, 2, 3], port: 0, uid: 0),
            .init(address: [127, 0, 0, 1], port: 65535, uid: UInt32.max),
            .init(address: Array(0..<16), port: 47080, uid: 1000),
        ] {
            #expect(parse(ProcNetTCP.line(listener, slot: 12)) == [listener])
        }
    }

    @Test func anotherUsersListenerOrAnUnnamedOneReplacesTheSecretAndOnlyOurOwnDoesNot() throws {
        #expect(ServeListener.classify(holders: [1000], me: 1000) == .ownProcess)
        #expect(ServeListener.classify(holders: [1000, 1001], me: 1000) == .otherUser(uid: 1001))
        #expect(ServeListener.classify(holders: [0], me: 1000) == .otherUser(uid: 0))
        #expect(ServeListener.classify(holders: [], me: 1000) == .otherUser(uid: nil))
        let address = try LoopbackAddress.parse("127.0.0.1:47080", defaultPort: 0)
        #expect(
            ServeListener.message(address, .otherUser(uid: 1001))
                == "port 47080 on 127.0.0.1 is held by another user (uid 1001): every URL with the old secret may "
                + "have gone to them, so the secret was replaced; free the port or choose another (--listen "
                + "127.0.0.1:PORT), then paste the new URLs (portal-auth serve url URL)")
        let own = ServeListener.message(address, .ownProcess)
        #expect(own.contains("already in use by a process of your own") && !own.contains("replaced"))
    }
}
