import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthenticationManager {
    /// Answers a TLS-level demand (a certificate that does not verify, a client certificate wanted
    /// in the handshake, or a web server's HTTP demand for one) once per host, kind and request.
    func answerNetworkDemand(
        _ kind: NetworkAuthenticationChallenge.Kind, _ error: PortalAuthError, _ attempt: RequestAttempt,
        _ ledger: inout ChallengeLedger, _ provisional: inout [ProvisionalNetworkCredential]
    ) async throws {
        let host = attempt.host
        guard ledger.answer(.network(host: host, kind.category)) else {
            network.forgetAnswers(provisional.filter { $0.categories.contains(kind.category) })
            if case .clientCertificate = kind {
                throw PortalAuthError(
                    .authenticationFailed,
                    "\(host.host):\(host.port) refused the client certificate it was just given (not for this server, "
                        + "or not from a CA it trusts); nothing was stored",
                    remedy: .provideClientCertificate(host: host.host, port: host.port), cause: error.cause)
            }
            throw error
        }
        let previous = NetworkResolver.contributor(
            of: kind, among: try await networkCredentialStore.credentials(for: host) + provisional.map(\.credential))
        let challenge = NetworkAuthenticationChallenge(
            requestURL: attempt.url, host: host, kind: kind, message: error.message, previousCredential: previous)
        provisional.append(
            try await network.resolve(challenge, unanswered: error, used: provisional, sent: attempt.options))
    }

    /// Answers an HTTP 401 with `WWW-Authenticate` (Basic, Digest, NTLM, Negotiate) once per host and request.
    func answerHTTPAuthentication(
        _ offered: HTTPAuthenticationHeader, _ attempt: RequestAttempt, _ ledger: inout ChallengeLedger,
        _ provisional: inout [ProvisionalNetworkCredential]
    ) async throws {
        let host = attempt.host
        guard ledger.answer(.network(host: host, .httpAuthentication)) else {
            network.forgetAnswers(provisional.filter { $0.categories.contains(.httpAuthentication) })
            throw PortalAuthError(
                .authenticationFailed,
                "\(host.host):\(host.port) refused the username and password (HTTP 401 again right after they were "
                    + "given): the password or user name is wrong; nothing was stored",
                remedy: .provideHTTPPassword(url: attempt.url), cause: .httpStatus(401))
        }
        let kind = NetworkAuthenticationChallenge.Kind.httpAuthentication(
            schemes: offered.schemes, realm: offered.realm)
        let previous = NetworkResolver.contributor(
            of: kind, among: try await networkCredentialStore.credentials(for: host))
        let challenge = NetworkAuthenticationChallenge(
            requestURL: attempt.url, host: host, kind: kind,
            message: "\(host.host):\(host.port) asks for HTTP \(offered.description) authentication",
            previousCredential: previous)
        let unanswered = PortalAuthError(
            .authenticationRequired,
            "\(host.host):\(host.port) asks for HTTP \(offered.description) authentication and no password was given",
            remedy: .provideHTTPPassword(url: attempt.url), cause: .httpStatus(401))
        provisional.append(
            try await network.resolve(
                challenge, unanswered: unanswered, used: provisional, sent: attempt.options))
    }

    /// What `url` asks for when it is sent without an HTTP password: the schemes (Basic, Digest,
    /// NTLM, Negotiate) and realm of its 401, or `nil` when it answers anything else (a server
    /// secured with tokens rather than at the web tier). The host's other stored network
    /// credentials (a trusted server's key, a client certificate) and its identity-aware proxy's
    /// token apply; a TLS demand throws what the transport said.
    public func httpAuthenticationOffer(
        for url: URL
    ) async throws -> (schemes: TransportOptions.HTTPAuthSchemes, realm: String?)? {
        var options = TransportOptions()
        for credential in try await networkCredentialStore.credentials(for: try ServerContext.host(of: url))
        where !NetworkCredentialCategory.of(credential).contains(.httpAuthentication) {
            credential.apply(to: &options)
        }
        do {
            return try await proxyOnlyTransport.send(TransportRequest(url: url), options: options)
                .httpAuthenticationOffer
        } catch let challenge as TransportChallengeError {
            throw challenge.error
        }
    }

    /// A network credential's registration with the server: sends `url` with `credential` and
    /// stores the credential only when the server accepts it (a 401 again, a refused certificate
    /// or a key that does not match throws, and nothing is stored). Returns the server's answer.
    @discardableResult
    public func signIn(with credential: any NetworkCredential, verifying url: URL) async throws -> ArcGISResponse {
        let host = try ServerContext.host(of: url)
        guard credential.host == host else {
            throw PortalAuthError(
                .invalidArgument,
                "the credential is for \(credential.host), not \(host)", remedy: .checkURL)
        }
        let fresh = ProvisionalNetworkCredential(credential, registering: true)
        // A 4xx or 5xx answer throws: the credential is stored only with a successful answer.
        let response = try await send(ArcGISRequest(url: url, expectsJSON: false), presetting: fresh)
        try await fresh.commit(to: networkCredentialStore, accepted: true, succeeded: true)
        return response
    }
}
