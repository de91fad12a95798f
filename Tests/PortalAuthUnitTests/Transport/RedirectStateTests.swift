import Foundation
import Testing

@testable import PortalAuth

/// What a request becomes after a redirect, without I/O: 301, 302 and 303 turn it into a GET of the
/// new location without its parameters; 307 and 308 keep them, and so go on only within the same
/// context and scheme (never from https to http on the same host, where a context alone would agree).
@Suite struct RedirectStateTests {
    static func target(_ url: String) -> RequestTarget {
        RequestTarget(ArcGISRequest(url: URL(string: url)!, parameters: [("password", "p")], method: .post))
    }

    @Test(arguments: [307, 308])
    func aResendToHTTPOnTheSameHostIsRefused(status: Int) throws {
        var state = RedirectState(expectsJSON: true)
        #expect(throws: PortalAuthError.self) {
            try state.follow(
                Self.target("https://portal.example/portal/sharing/rest/community/users/u/update"), status: status,
                location: "http://portal.example/portal/sharing/rest/community/users/u/update",
                keepsContext: { _ in true })
        }
    }

    @Test(arguments: [307, 308])
    func aResendWithinTheContextKeepsItsParameters(status: Int) throws {
        var state = RedirectState(expectsJSON: true)
        let next = try state.follow(
            Self.target("https://portal.example/portal/sharing/rest/a"), status: status,
            location: "/portal/sharing/rest/b", keepsContext: { _ in true })
        #expect(next.url.absoluteString == "https://portal.example/portal/sharing/rest/b")
        #expect(next.parameters.map(\.0) == ["password", "f"])
    }

    @Test func aSeeOtherToHTTPIsAGETWithoutTheParameters() throws {
        var state = RedirectState(expectsJSON: true)
        let next = try state.follow(
            Self.target("https://portal.example/portal/sharing/rest/a"), status: 303,
            location: "http://portal.example/portal/b", keepsContext: { _ in false })
        #expect(next.method == .get)
        #expect(next.parameters.map(\.0) == ["f"])
    }
}
