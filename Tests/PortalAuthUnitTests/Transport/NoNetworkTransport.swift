@testable import PortalAuth

/// A transport that answers nothing, for the unit tier's managers: these tests never reach a server,
/// and a request that is made anyway fails as a lost connection would.
struct NoNetworkTransport: HTTPTransport {
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        throw PortalAuthError(.connectionFailed, "no network in unit tests", remedy: .none)
    }
}
