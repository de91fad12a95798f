#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends HTTP requests. ``CurlTransport`` is the real one.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the final response without following redirects.
    ///
    /// Throws ``PortalAuthError`` for network failures: a server certificate that does not verify
    /// with code ``PortalAuthError/Code/untrustedServer`` and remedy
    /// ``PortalAuthError/Remedy/trustServer(host:port:)``, a client certificate demand with
    /// ``PortalAuthError/Remedy/provideClientCertificate(host:)``. (``CurlTransport`` wraps those in
    /// a package-internal error that also carries the ``TransportChallenge``, so that the
    /// ``AuthenticationManager`` can offer it to network credential handlers; the manager throws
    /// the ``PortalAuthError`` inside when no handler answers.)
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse

    /// Connects to `host:port` over TLS without sending a request and reports the server's
    /// certificate and whether it verifies (for server trust decisions).
    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport
}

extension HTTPTransport {
    /// Transports that cannot inspect certificates say so.
    public func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        throw PortalAuthError(
            .internalError, "this transport (\(type(of: self))) cannot read a server's certificate (CurlTransport can)")
    }
}
