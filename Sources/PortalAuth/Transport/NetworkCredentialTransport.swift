import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport that gives every request the stored network credentials of its host (a trusted
/// server's pinned key, a client certificate, an HTTP password) unless the request brings its own,
/// so plugins' own requests (token services, identity providers) reach such hosts too.
struct NetworkCredentialTransport: HTTPTransport {
    let base: any HTTPTransport
    let store: NetworkCredentialStore

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        var stored: [any NetworkCredential] = []
        if let host = try? ServerContext.host(of: request.url) { stored = try await store.credentials(for: host) }
        let merged = Self.merged(stored, under: options)
        return try await base.send(request, options: merged)
    }

    /// What a request to a host sends: the host's stored network credentials, each field replaced
    /// by the request's `own` where it brings one. The loop reads what it sent from here.
    static func merged(_ stored: [any NetworkCredential], under own: TransportOptions) -> TransportOptions {
        var merged = TransportOptions()
        for credential in stored { credential.apply(to: &merged) }
        if let own = own.httpAuthentication { merged.httpAuthentication = own }
        if let own = own.clientCertificate { merged.clientCertificate = own }
        if let own = own.pinnedPublicKey { merged.pinnedPublicKey = own }
        return merged
    }

    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        try await base.serverCertificate(host: host, port: port)
    }
}
