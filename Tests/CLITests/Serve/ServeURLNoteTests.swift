import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `serve url` when no serve runs (issue #38, item 5): the URL still goes to stdout (a saved
/// project needs it) and the exit is 0, but one line on stderr says serve is not running and how to
/// start it. The port is held by the test (bound, listening or not), so no other process takes it.
@Suite struct ServeURLNoteTests {
    /// A TCP socket bound to a free loopback port, listening when `listening`; its descriptor and port.
    static func heldPort(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        #expect(bound)
        if listening { #expect(listen(fd, 4) == 0) }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    static let remote = "https://example.com/server/rest/services/Parcels/FeatureServer"

    @Test(arguments: [false, true]) func theURLIsPrintedAndANoteSaysWhetherServeRuns(_ listening: Bool) async throws {
        let (fd, port) = try Self.heldPort(listening: listening)
        defer { close(fd) }
        let folder = temporaryPath("pa-serve-url")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let state = folder + "/serve.json"
        let json = #"{"url": "http://127.0.0.1:\#(port)/abc/", "pid": 1}"#
        try json.write(toFile: state, atomically: true, encoding: .utf8)
        let result = try await CLI.portalAuth(
            ["serve", "url", "--state-file", state, Self.remote], emulator: nil,
            environment: ["PORTAL_AUTH_STORE": "memory"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("http://127.0.0.1:\(port)/abc/"), "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").count == 1, "\(result.stdout)")
        let note =
            "portal-auth: note: portal-auth serve is not running (nothing listens on 127.0.0.1:\(port)); start it "
            + "with 'portal-auth serve' or 'systemctl --user start portal-auth-serve.service'\n"
        #expect(result.stderr == (listening ? "" : note), "\(result.stderr)")
    }

    @Test func withoutAStateFileTheListenAddressIsTried() async throws {
        let (fd, port) = try Self.heldPort(listening: false)
        defer { close(fd) }
        let result = try await CLI.portalAuth(
            ["serve", "url", "--listen", "127.0.0.1:\(port)", Self.remote], emulator: nil,
            environment: ["PORTAL_AUTH_STORE": "memory"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("http://127.0.0.1:\(port)/"), "\(result.stdout)")
        #expect(result.stderr.hasPrefix("portal-auth: note: portal-auth serve is not running"), "\(result.stderr)")
    }
}
