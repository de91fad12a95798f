import Testing

@testable import PortalAuth
@testable import PortalAuthServe

/// How serve answers a local client when the core or the remote server said no, without a server:
/// the status says who refused.
@Suite struct ServeErrorsTests {
    func status(_ error: PortalAuthError) -> Int {
        ServeErrors.response(for: error, describe: { $0.message }).status
    }

    @Test func aRefusalOfTheCoreIs403AndAnUnreachableServerIs502Or504() {
        // Nothing was contacted: no credential covers the URL, or its token would go over plain http.
        #expect(status(PortalAuthError(.noCredential, "none")) == 403)
        #expect(status(PortalAuthError(.insecureTransport, "http")) == 403)
        #expect(status(PortalAuthError(.invalidURL, "bad")) == 400)
        #expect(status(PortalAuthError(.timedOut, "slow")) == 504)
        #expect(status(PortalAuthError(.connectionFailed, "down")) == 502)
        // The remote server's own status is passed on.
        #expect(status(PortalAuthError(.httpError, "gone", cause: .httpStatus(410))) == 410)
    }
}
