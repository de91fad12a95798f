import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport that adds the IAP credential's `Authorization: Bearer` header to every request
/// whose host is behind an identity-aware proxy, and to no other. It never sends the token over
/// plain http.
struct IAPAuthorizingTransport: HTTPTransport {
    let base: any HTTPTransport
    let iapAuthorization: IAPAuthorization

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        var request = request
        if request.header("Authorization") == nil,
            let credential = try await iapAuthorization.credentialForUse(request.url)
        {
            guard request.url.scheme?.lowercased() == "https" else { throw Self.plainHTTPRefusal(request.url) }
            var unchanged = options
            credential.attach(to: &request, options: &unchanged)
        }
        return try await base.send(request, options: options)
    }

    /// Why the proxy's token is not sent to the plain http `url`.
    static func plainHTTPRefusal(_ url: URL) -> PortalAuthError {
        PortalAuthError(
            .insecureTransport,
            "refusing to send the identity-aware proxy's token to \(ServerContext.describe(url)) over plain http",
            remedy: .useHTTPS(url: url))
    }

    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        try await base.serverCertificate(host: host, port: port)
    }
}
