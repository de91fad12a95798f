/// Answers network challenges (server trust, client certificates, HTTP authentication): one
/// plugin call per host and kind however many requests are challenged at once, and each host's
/// most recent answer, not yet accepted by a server, so that requests challenged just after it
/// take it instead of asking again. The loop keeps a request's own fresh credentials
/// (``ProvisionalNetworkCredential``) and hands the server's answer here to store those accepted.
final class NetworkResolver: Sendable {
    /// Where network credentials are kept.
    let store: NetworkCredentialStore
    /// The plugins.
    let registry: HandlerRegistry
    /// One network challenge resolution per host and kind.
    let flights = SingleFlight<String, ProvisionalNetworkCredential?>()
    /// The last answer to each host's network challenges (`scheme://host:port category`).
    let recentAnswers = Locked<[String: ProvisionalNetworkCredential]>([:])

    init(store: NetworkCredentialStore, registry: HandlerRegistry) {
        self.store = store
        self.registry = registry
    }

    /// Whether a request challenged for `category` takes `recent`, another request's answer: not
    /// when this request already used it, nor when it is what the request sent and was refused.
    static func reuses(
        _ recent: ProvisionalNetworkCredential, category: NetworkCredentialCategory,
        used: [ProvisionalNetworkCredential], refused: TransportOptions
    ) -> Bool {
        !used.contains { $0 === recent } && recent.options.only(category) != refused
    }

    /// The categories of credential an answer refuses: HTTP authentication when it asks for it
    /// again, a client certificate when a web server demands one.
    static func refusedCategories(by response: TransportResponse) -> Set<NetworkCredentialCategory> {
        var refused = Set<NetworkCredentialCategory>()
        if response.httpAuthenticationOffer != nil { refused.insert(.httpAuthentication) }
        if response.demandsClientCertificate { refused.insert(.clientCertificate) }
        return refused
    }

    /// Whether a fresh credential answering `categories` was accepted by an answer with `status`
    /// that refuses `refused`: a pinned key or a client certificate once the TLS handshake worked,
    /// a password once the answer is neither a 401 nor another error.
    static func isAccepted(
        _ categories: Set<NetworkCredentialCategory>, refused: Set<NetworkCredentialCategory>, status: Int
    ) -> Bool {
        let acceptedInHandshake = categories.isSubset(of: [.serverTrust, .clientCertificate])
        return categories.isDisjoint(with: refused) && (acceptedInHandshake || status < 400)
    }

    /// Asks the plugins (one flight per host and kind) and returns the credential they give, not
    /// yet stored: the request stores it once the server accepts it.
    ///
    /// A request challenged just after another one's flight ended gets that flight's answer, not
    /// yet accepted by the server, or the credential another request stored since: anything but
    /// what it `sent` (which was refused), so concurrent requests ask once and a refused or
    /// changed credential (a pinned key that no longer matches) goes to the plugins.
    func resolve(
        _ challenge: NetworkAuthenticationChallenge, unanswered: PortalAuthError,
        used: [ProvisionalNetworkCredential], sent: TransportOptions
    ) async throws -> ProvisionalNetworkCredential {
        let category = challenge.kind.category
        let refused = sent.only(category)
        let recentKey = "\(challenge.host.url) \(category.rawValue)"
        if let recent = recentAnswers.withLock({ $0[recentKey] }),
            Self.reuses(recent, category: category, used: used, refused: refused)
        {
            return recent
        }
        let key = "\(challenge.host.url) \(challenge.kind)"
        let answer = try await flights.run(key) { [self] () -> ProvisionalNetworkCredential? in
            // Stored since this request was sent (by another task, or another process).
            if let stored = Self.contributor(
                of: challenge.kind,
                among: try await store.credentials(for: challenge.host, reload: true))
            {
                let candidate = ProvisionalNetworkCredential(stored, alreadyStored: true)
                if candidate.options.only(category) != refused { return candidate }
            }
            guard registry.canHandle(.network(challenge)) else { return nil }
            guard case .network(let credential)? = try await registry.route(.network(challenge)) else { return nil }
            let fresh = ProvisionalNetworkCredential(credential)
            recentAnswers.withLock { $0[recentKey] = fresh }
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
        let refused = Self.refusedCategories(by: response)
        var pending: [ProvisionalNetworkCredential] = []
        for fresh in provisional {
            let accepted = Self.isAccepted(fresh.categories, refused: refused, status: response.status)
            // (A credential being registered is committed by its sign-in once the request succeeded.)
            guard try await fresh.commit(to: store, accepted: accepted, succeeded: false) else {
                pending.append(fresh)
                continue
            }
            forgetAnswers([fresh])
        }
        return pending
    }

    /// Forgets answers a server refused (so the next challenge asks again) or that are stored now.
    func forgetAnswers(_ refused: [ProvisionalNetworkCredential]) {
        recentAnswers.withLock { answers in
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
}
