import Testing

@testable import PortalAuth

/// What the OAuth redirect's listener answers a request the local server read: only a GET of the
/// redirect path with this sign-in's state is the redirect; every other request is answered and
/// the sign-in goes on.
@Suite struct LoopbackRedirectVerdictTests {
    typealias Verdict = LoopbackRedirectRequest.Verdict

    func verdict(_ method: String, _ target: String, state: String? = "s") -> Verdict {
        LoopbackRedirectRequest.verdict(method: method, target: target, path: "/cb", expectedState: state)
    }

    @Test func onlyAGetOfThePathWithThisSignInsStateIsTheRedirect() {
        #expect(verdict("GET", "/cb?code=c&state=s") == .redirect(["code": "c", "state": "s"]))
        #expect(verdict("GET", "/cb?code=c&state=s&code=other") == .redirect(["code": "c", "state": "s"]))
        #expect(verdict("GET", "/cb?code=c", state: nil) == .redirect(["code": "c"]))
    }

    @Test(arguments: ["POST", "HEAD", "get", "PUT", "OPTIONS"])
    func anotherMethodIsABadRequest(method: String) {
        #expect(verdict(method, "/cb?code=c&state=s") == .badRequest)
    }

    @Test func anotherPathIsNotFoundAndAnotherStateIsTurnedAway() {
        #expect(verdict("GET", "") == .badRequest)
        #expect(verdict("GET", "/favicon.ico") == .notFound)
        #expect(verdict("GET", "/cb/?code=c&state=s") == .notFound)
        #expect(verdict("GET", "/cb?code=c&state=forged") == .turnedAway)
        #expect(verdict("GET", "/cb?error=access_denied") == .turnedAway)
        #expect(verdict("GET", "/cb") == .turnedAway)
    }
}
