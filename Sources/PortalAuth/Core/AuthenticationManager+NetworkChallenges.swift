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
            forgetNetworkAnswers(provisional.filter { $0.categories.contains(kind.category) })
            if case .clientCertificate = kind {
                throw PortalAuthError(
                    .authenticationFailed,
                    "\(host.host):\(host.port) refused the client certificate it was just given: the certificate is not for this server or not from a CA it trusts; nothing was stored",
                    remedy: .provideClientCertificate(host: host.host, port: host.port), cause: error.cause)
            }
            throw error
        }
        let previous = Self.contributor(
            of: kind, among: try await networkCredentialStore.credentials(for: host) + provisional.map(\.credential))
        let challenge = NetworkAuthenticationChallenge(
            requestURL: attempt.url, host: host, kind: kind, message: error.message, previousCredential: previous)
        provisional.append(
            try await resolveNetworkChallenge(challenge, unanswered: error, used: provisional, sent: attempt.options))
    }

    /// Answers an HTTP 401 with `WWW-Authenticate` (Basic, Digest, NTLM, Negotiate) once per host and request.
    func answerHTTPAuthentication(
        _ offered: HTTPAuthenticationHeader, _ attempt: RequestAttempt, _ ledger: inout ChallengeLedger,
        _ provisional: inout [ProvisionalNetworkCredential]
    ) async throws {
        let host = attempt.host
        guard ledger.answer(.network(host: host, .httpAuthentication)) else {
            forgetNetworkAnswers(provisional.filter { $0.categories.contains(.httpAuthentication) })
            throw PortalAuthError(
                .authenticationFailed,
                "\(host.host):\(host.port) refused the username and password (HTTP 401 again right after they were given): the password or user name is wrong; nothing was stored",
                remedy: .provideHTTPPassword(url: attempt.url), cause: .httpStatus(401))
        }
        let kind = NetworkAuthenticationChallenge.Kind.httpAuthentication(
            schemes: offered.schemes, realm: offered.realm)
        let previous = Self.contributor(of: kind, among: try await networkCredentialStore.credentials(for: host))
        let challenge = NetworkAuthenticationChallenge(
            requestURL: attempt.url, host: host, kind: kind,
            message: "\(host.host):\(host.port) asks for HTTP \(offered.description) authentication",
            previousCredential: previous)
        let unanswered = PortalAuthError(
            .authenticationRequired,
            "\(host.host):\(host.port) asks for HTTP \(offered.description) authentication and no password was given",
            remedy: .provideHTTPPassword(url: attempt.url), cause: .httpStatus(401))
        provisional.append(
            try await resolveNetworkChallenge(
                challenge, unanswered: unanswered, used: provisional, sent: attempt.options))
    }

    /// Asks the plugins (one flight per host and kind) and returns the credential they give, not
    /// yet stored: the request stores it once the server accepts it.
    ///
    /// A request challenged just after another one's flight ended gets that flight's answer, not
    /// yet accepted by the server, or the credential another request stored since: anything but
    /// what it `sent` (which was refused), so concurrent requests ask once and a refused or
    /// changed credential (a pinned key that no longer matches) goes to the plugins.
    func resolveNetworkChallenge(
        _ challenge: NetworkAuthenticationChallenge, unanswered: PortalAuthError,
        used: [ProvisionalNetworkCredential], sent: TransportOptions
    ) async throws -> ProvisionalNetworkCredential {
        let category = challenge.kind.category
        let refused = sent.only(category)
        let recentKey = "\(challenge.host.url) \(category.rawValue)"
        if let recent = recentNetworkAnswers.withLock({ $0[recentKey] }), !used.contains(where: { $0 === recent }),
            recent.options.only(category) != refused
        {
            return recent
        }
        let key = "\(challenge.host.url) \(challenge.kind)"
        let answer = try await networkFlights.run(key) { [self] () -> ProvisionalNetworkCredential? in
            // Stored since this request was sent (by another task, or another process).
            if let stored = Self.contributor(
                of: challenge.kind,
                among: try await networkCredentialStore.credentials(for: challenge.host, reload: true))
            {
                let candidate = ProvisionalNetworkCredential(stored, alreadyStored: true)
                if candidate.options.only(category) != refused { return candidate }
            }
            guard handlers.contains(where: { $0.canHandle(.network(challenge)) }) else { return nil }
            guard case .network(let credential)? = try await route(.network(challenge)) else { return nil }
            let fresh = ProvisionalNetworkCredential(credential)
            recentNetworkAnswers.withLock { $0[recentKey] = fresh }
            return fresh
        }
        guard let answer else { throw unanswered }
        return answer
    }

    /// Stores the fresh credentials `response` shows the server accepted and returns the others:
    /// a pinned key or a client certificate once the TLS handshake worked (and no HTTP demand for
    /// a certificate came back), a password once the answer is neither a 401 nor another error.
    func commitAccepted(
        _ provisional: [ProvisionalNetworkCredential], by response: TransportResponse
    ) async throws -> [ProvisionalNetworkCredential] {
        guard !provisional.isEmpty else { return provisional }
        var refused = Set<NetworkCredentialCategory>()
        if response.httpAuthenticationOffer != nil { refused.insert(.httpAuthentication) }
        if response.demandsClientCertificate { refused.insert(.clientCertificate) }
        var pending: [ProvisionalNetworkCredential] = []
        for fresh in provisional {
            let acceptedInHandshake = fresh.categories.isSubset(of: [.serverTrust, .clientCertificate])
            guard fresh.categories.isDisjoint(with: refused), acceptedInHandshake || response.status < 400 else {
                pending.append(fresh)
                continue
            }
            try await fresh.commit(to: networkCredentialStore)
            forgetNetworkAnswers([fresh])
        }
        return pending
    }

    /// Forgets answers a server refused (so the next challenge asks again) or that are stored now.
    func forgetNetworkAnswers(_ refused: [ProvisionalNetworkCredential]) {
        recentNetworkAnswers.withLock { answers in
            answers = answers.filter { _, answer in !refused.contains { $0 === answer } }
        }
    }

    /// The credential among `credentials` whose options answer challenges of `kind` (the one that
    /// was used and refused), if any.
    static func contributor(
        of kind: NetworkAuthenticationChallenge.Kind, among credentials: [any NetworkCredential]
    ) -> (any NetworkCredential)? {
        credentials.last { NetworkCredentialCategory.of($0).contains(kind.category) }
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
            return try await requestTransport.send(TransportRequest(url: url), options: options).httpAuthenticationOffer
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
                "the credential is for \(credential.host), not \(host): give a URL on \(credential.host)",
                remedy: .none)
        }
        let fresh = ProvisionalNetworkCredential(credential, registering: true)
        // A 4xx or 5xx answer throws: the credential is stored only with a successful answer.
        let response = try await send(ArcGISRequest(url: url, expectsJSON: false), presetting: fresh)
        try await fresh.commit(to: networkCredentialStore)
        return response
    }
}
