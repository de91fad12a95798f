import Foundation
import PortalAuth
import Testing

/// A header whose name or value holds a line break (or a name with a colon) is refused before
/// anything is sent: no header is ever smuggled into a request. `\r\n` together included, which
/// Swift reads as one character, equal neither to `\r` nor to `\n`.
@Suite struct HeaderLineBreakTests {
    @Test(arguments: [
        ("X-Token", "abc\r\nX-Injected: 1"), ("X-Token", "abc\nX-Injected: 1"), ("X-Token", "abc\rdef"),
        ("X-Token\r\nX-Injected", "1"), ("X-Token:", "1"), ("X\nToken", "1"),
    ])
    func isRefusedBeforeAnythingIsSent(_ name: String, _ value: String) async throws {
        let transport = CurlTransport()
        defer { transport.shutdown() }
        // (Port 9 of loopback: nothing is contacted, the request is refused first.)
        let request = TransportRequest(url: URL(string: "https://127.0.0.1:9/x")!, headers: [(name, value)])
        let error = await #expect(throws: PortalAuthError.self) {
            _ = try await transport.send(request, options: TransportOptions())
        }
        #expect(error?.code == .invalidArgument)
    }
}
