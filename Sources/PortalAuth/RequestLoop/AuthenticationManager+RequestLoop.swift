import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthenticationManager {
    /// ``send(_:)`` with a network credential that is being registered (see ``signIn(with:verifying:)``),
    /// or with the caller's decision for its URL (`send(_:as:)`).
    ///
    /// A small state machine: each turn sends one attempt and classifies the answer into one
    /// ``AttemptOutcome``; the `switch` decides what happens next. A challenge is answered once per
    /// request (``ChallengeLedger``), and redirects are counted and checked by ``RedirectState``.
    func send(
        _ request: ArcGISRequest, presetting preset: ProvisionalNetworkCredential?, decided: CredentialDecision? = nil
    ) async throws -> ArcGISResponse {
        var target = RequestTarget(request)
        // The URL is sent as it is read to choose its credential: in its one strict reading.
        target.url = try StrictURL.normalized(target.url)
        // The caller's decision, made for this very URL, is the first attempt's (not decided again).
        if let decided, decided.decidedBy === self,
            ASCIIText.sameBytes(decided.url.absoluteString, request.url.absoluteString)
        {
            target.decided = decided
        }
        var ledger = ChallengeLedger()
        var redirects = RedirectState(expectsJSON: request.expectsJSON)
        // Network credentials a plugin just gave: used for this request and stored only once the
        // server accepts them (a refused password or certificate is never stored).
        var provisional: [ProvisionalNetworkCredential] = []
        if let preset {
            // The server's refusal of a credential being registered is final, not a new challenge.
            provisional.append(preset)
            for category in preset.categories { _ = ledger.answer(.network(host: preset.credential.host, category)) }
        }
        while true {
            let attempt: RequestAttempt
            let sent: Result<TransportResponse, any Error>
            let outcome = try await sendAttempt(target, request.tokenPlacement, provisional)
            target.decided = nil  // Every later attempt (a retry, a redirect) decides anew.
            switch outcome {
            case .sent(let made, let answer): (attempt, sent) = (made, answer)
            case .signInStarted: continue  // Retry: the next attempt waits for the sign-in's credential.
            }
            // Every challenge answered below ends its case; the loop then retries with the answer.
            switch try await classify(sent, of: attempt, provisional: &provisional) {
            case .done(let response):
                let source = ServerContext.describe(attempt.url)
                let json = request.expectsJSON ? try JSONValue.parse(response.body, source: source) : nil
                return ArcGISResponse(http: response, json: json)
            case .failure(let error):
                // API key (#39): refused (401/403) while its file rotated: sent once more with the new key.
                if try await retriesWithRotatedKey(after: error, attempt, &ledger) { continue }
                throw error
            case .redirect(let status, let location):
                if !request.followsRedirects, case .success(let response) = sent {
                    return ArcGISResponse(http: response, json: nil)
                }
                target = try followRedirect(from: attempt, to: location, status: status, target, &redirects)
            case .tlsDemand(let kind, let error):
                try await answerNetworkDemand(kind, error, attempt, &ledger, &provisional)
            case .httpAuthenticationChallenge(let offered):
                try await answerHTTPAuthentication(offered, attempt, &ledger, &provisional)
            case .iapSignIn(let challenge):
                try await answerIAPSignIn(challenge, attempt, &ledger)
            case .arcGISChallenge(let error):
                try await answerArcGISChallenge(error, attempt, &ledger)
            }
        }
    }

    /// What came of sending one attempt.
    enum SentAttempt {
        /// The attempt went out: the transport's answer (a TLS demand comes back as a failure).
        case sent(RequestAttempt, Result<TransportResponse, any Error>)
        /// It did not go out: a sign-in for the server started while it waited for its host's
        /// gate; the loop retries, and the next attempt waits for that sign-in.
        case signInStarted
    }

    /// Sends one attempt for `target` with the credentials of its server context, its host and the
    /// identity-aware proxy in front of it, each read once, here (``attemptTransport`` adds none).
    func sendAttempt(
        _ target: RequestTarget, _ placement: ArcGISRequest.TokenPlacement,
        _ provisional: [ProvisionalNetworkCredential]
    ) async throws -> SentAttempt {
        let host = try ServerContext.host(of: target.url)
        // While a sign-in for this server is under way, requests wait for its credential
        // instead of going out without one only to be challenged again.
        var decided = target.decided
        if let pending = arcGIS.pendingChallenge(for: target.url) {
            _ = try? await pending.value
            decided = nil  // (Made before that sign-in: decided again.)
        }
        let gate = requestGate(for: host)
        // (A decision made before a wait for the gate may be stale: a credential stored meanwhile wins.)
        if await gate.acquire() { decided = nil }
        defer { gate.release() }
        // The scope decision (+Scope): the user's credential, else the API key, only inside its scope;
        // the caller's when it made it for this URL.
        let credential: (any ArcGISCredential)?
        if let decided {
            credential = decided.credential
        } else {
            credential = try await attachableCredential(for: target.url)
        }
        if credential == nil, arcGIS.pendingChallenge(for: target.url) != nil { return .signInStarted }
        // The request's own fresh network credentials go with it, the stored ones under them, merged
        // once here (as the chain merges them for plugins' requests): `options` is what it sends.
        var own = TransportOptions()
        for fresh in provisional where fresh.credential.host == host { fresh.credential.apply(to: &own) }
        let options = NetworkCredentialTransport.merged(
            try await networkCredentialStore.credentials(for: host), under: own)
        var http = makeHTTPRequest(
            url: target.url, parameters: target.parameters, method: target.bodyStream == nil ? target.method : .get,
            placement: placement, credential: credential)
        http.responseStream = target.responseStream
        let proxy = try await attemptProxy(for: target.url, decided: decided)
        if let proxy, http.header("Authorization") == nil {
            var unchanged = TransportOptions()
            proxy.attach(to: &http, options: &unchanged)
        }
        if let body = target.bodyStream {
            // The parameters went in the query (as for a GET); the streamed form is the body.
            http.method = .post
            http.bodyStream = body
            http.setHeader("Content-Type", "application/x-www-form-urlencoded")
        }
        logger.debug(
            "request",
            metadata: [
                "method": "\(http.method.rawValue)", "url": "\(URLRedaction.redact(target.url.absoluteString))",
                "credential": "\(credential.map { type(of: $0).kind } ?? "none")",
            ])
        let attempt = RequestAttempt(
            url: target.url, host: host, credential: credential, proxy: proxy, options: options)
        do { return .sent(attempt, .success(try await attemptTransport.send(http, options: options))) } catch {
            return .sent(attempt, .failure(error))
        }
    }

    /// The identity-aware proxy's credential an attempt to `url` carries: the one the caller's
    /// decision gave (`decided`, made for `url`), else the stored one, renewed when close to expiry. Its token
    /// never goes over plain http: with one stored for an http `url`, the attempt is refused.
    func attemptProxy(
        for url: URL, decided: CredentialDecision?
    ) async throws -> (any IAPAuthorizationCredential)? {
        let https = url.scheme?.lowercased() == "https"
        if let decided, decided.includesProxy, https, let proxy = decided.proxy { return proxy }
        guard let proxy = try await iap.authorization.credentialForUse(url) else { return nil }
        guard https else { throw IAPAuthorizingTransport.plainHTTPRefusal(url) }
        return proxy
    }

    /// What the answer to `attempt` calls for, in the order the answers are recognised: a TLS
    /// demand, a transport failure, a demand for a client certificate, a proxy's sign-in, a
    /// redirect, HTTP authentication, an ArcGIS error (a challenge or a failure), an HTTP error,
    /// or success. Stores the fresh network credentials the answer shows were accepted.
    func classify(
        _ sent: Result<TransportResponse, any Error>, of attempt: RequestAttempt,
        provisional: inout [ProvisionalNetworkCredential]
    ) async throws -> AttemptOutcome {
        let response: TransportResponse
        switch sent {
        case .failure(let challengeError as TransportChallengeError):
            switch challengeError.challenge {
            case .serverTrust(_, _, let reason, _):
                return .tlsDemand(.serverTrust(reason: reason), challengeError.error)
            case .clientCertificate: return .tlsDemand(.clientCertificate, challengeError.error)
            }
        case .failure(let error): return .failure(error)
        case .success(let answer): response = answer
        }
        if !provisional.isEmpty { provisional = try await network.commitAccepted(provisional, by: response) }
        let host = attempt.host
        if response.demandsClientCertificate {
            return .tlsDemand(
                .clientCertificate,
                PortalAuthError(
                    .authenticationRequired,
                    "\(host.host):\(host.port) requires a client certificate (HTTP \(response.status))",
                    remedy: .provideClientCertificate(host: host.host, port: host.port),
                    cause: .httpStatus(response.status)))
        }
        // An identity-aware proxy in front of the host wants sign-in (only a redirect or a Bearer
        // 401 can say so: any other answer is not looked at again).
        if IAPAuthenticationChallenge.mayBeSignInDemand(response) != nil,
            let challenge = try await iap.challenge(url: attempt.url, response: response)
        {
            return .iapSignIn(challenge)
        }
        return Self.classifyAnswer(response, of: attempt)
    }

    /// The part of ``classify(_:of:provisional:)`` that reads the answer alone: a redirect, HTTP
    /// authentication, an ArcGIS error (a challenge or a failure), an HTTP error, or success.
    static func classifyAnswer(_ response: TransportResponse, of attempt: RequestAttempt) -> AttemptOutcome {
        let url = attempt.url
        // Redirects: followed by the loop, so the credential is chosen again for the new URL.
        if RedirectState.statuses.contains(response.status), let location = response.header("Location") {
            return .redirect(status: response.status, location: location)
        }
        if response.status == 401,
            let offered = HTTPAuthenticationHeader.parse(response.headers(named: "WWW-Authenticate"))
        {
            return .httpAuthenticationChallenge(offered)
        }
        guard let failure = AuthenticationServices.answerFailure(response, from: url) else { return .done(response) }
        if let error = failure.arcGIS {
            let isChallenge =
                error.code == 499 || error.code == 498
                || (error.code == 403 && error.messageCode == "GWM_0003" && attempt.credential == nil)
            if isChallenge { return .arcGISChallenge(error) }
        }
        return .failure(failure.error)
    }

    /// The request after a redirect of `attempt` to `location` (counted and checked by `redirects`).
    func followRedirect(
        from attempt: RequestAttempt, to location: String, status: Int, _ target: RequestTarget,
        _ redirects: inout RedirectState
    ) throws -> RequestTarget {
        let next = try redirects.follow(target, status: status, location: location) { next in
            ScopedCredential.resendKeepsCredential(attempt.credential, from: attempt.url, to: next)
        }
        logger.debug(
            "redirect",
            metadata: [
                "from": "\(URLRedaction.redact(attempt.url.absoluteString))",
                "to": "\(URLRedaction.redact(next.url.absoluteString))",
            ])
        return next
    }

    /// Answers an ArcGIS challenge (499, 498, 403 `GWM_0003` without a token) once per request.
    func answerArcGISChallenge(
        _ error: ArcGISError, _ attempt: RequestAttempt, _ ledger: inout ChallengeLedger
    )
        async throws
    {
        let url = attempt.url
        // API key (#22): a refused key is final (a key is replaced, never renewed or signed in again).
        if let key = attempt.credential as? APIKeyCredential {
            // Unless the store holds a newer key for its portal (rotated meanwhile): sent again once, with it.
            // Or its file holds another now (#39): read again before the refusal is reported.
            guard ledger.answer(.arcGIS), try await adoptReplacement(of: key) else {
                throw key.refusal(error, at: url)
            }
            return
        }
        let sent = "\(error.code) \(error.message)"
        guard ledger.answer(.arcGIS) else {
            let message = "refused the credential it was just given (\(sent)): not valid for this server"
            throw try await challengeRefusal(.invalidToken, message, error, attempt)
        }
        logger.debug(
            "ArcGIS challenge",
            metadata: ["code": "\(error.code)", "url": "\(URLRedaction.redact(url.absoluteString))"])
        guard try await arcGIS.resolveArcGISChallenge(url: url, error: error, sent: attempt.credential) != nil else {
            let message = "requires sign-in (\(sent)) and no credential was given"
            throw try await challengeRefusal(.authenticationRequired, message, error, attempt)
        }
    }

    /// The error of an ArcGIS challenge the request cannot answer: the URL, then `message`, with the
    /// remedy of signing in again as the refused credential was made.
    private func challengeRefusal(
        _ code: PortalAuthError.Code, _ message: String, _ error: ArcGISError, _ attempt: RequestAttempt
    ) async throws -> PortalAuthError {
        let remedy = try await signInRemedy(afterRefusing: attempt.credential, at: attempt.url)
        return PortalAuthError(
            code, "\(ServerContext.describe(attempt.url)) \(message)", remedy: remedy, cause: error.cause)
    }

    /// How to sign in again after the server refused `credential` (or wanted one for `url`): as
    /// the portal credential it was derived from was made (a federated server token, whatever
    /// kind of portal credential gave it), or as it was made itself.
    func signInRemedy(
        afterRefusing credential: (any ArcGISCredential)?, at url: URL
    ) async throws -> PortalAuthError.Remedy {
        if let portal = credential?.derivedFrom, let source = try? await arcGISCredentialStore.credential(for: portal) {
            return .signIn(source.howToSignIn)
        }
        return Self.signInRemedy(for: try credential?.serverContext ?? ServerContext(url: url), credential: credential)
    }

    /// Answers an identity-aware proxy's sign-in demand once per host and request.
    func answerIAPSignIn(
        _ challenge: IAPAuthenticationChallenge, _ attempt: RequestAttempt, _ ledger: inout ChallengeLedger
    ) async throws {
        let host = attempt.host
        // What the attempt carried; when nothing, the stored one (expired, say) names the proxy and its sign-in.
        var sent = attempt.proxy
        if sent == nil { sent = try await iapCredentialStore.credential(for: attempt.url) }
        guard ledger.answer(.iap(host: host)) else {
            throw PortalAuthError(
                .authenticationFailed,
                "the identity-aware proxy in front of \(host.host):\(host.port) refused the token it was just given "
                    + "(HTTP \(challenge.status))",
                remedy: .signIn(sent?.howToSignIn ?? .identityAwareProxy()), cause: .httpStatus(challenge.status))
        }
        try await iap.resolve(challenge, sent: sent)
    }

    /// How many requests to one host the manager has in the transport at once (twice libcurl's
    /// default connections per host, so connections never idle): the rest wait here, where they
    /// still see a credential that arrives meanwhile.
    static let requestsInFlightPerHost = 16

    func requestGate(for host: ServerContext) -> AsyncGate {
        gates.withLock { gates in
            if let gate = gates[host.url] { return gate }
            let gate = AsyncGate(limit: Self.requestsInFlightPerHost)
            gates[host.url] = gate
            return gate
        }
    }

    func makeHTTPRequest(
        url: URL, parameters: [(String, String)], method: ArcGISRequest.Method, placement: ArcGISRequest.TokenPlacement,
        credential: (any ArcGISCredential)?
    ) -> TransportRequest {
        var parameters = parameters
        if let credential, placement == .parameter { parameters.append(("token", credential.tokenInfo.accessToken)) }
        let query = FormEncoding.encode(parameters)
        let base = url.absoluteString
        let getURL = query.isEmpty ? base : base + (base.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + query
        var request: TransportRequest
        if method == .post || (method == .automatic && getURL.utf8.count > ArcGISRequest.maximumGETLength),
            !query.isEmpty
        {
            request = TransportRequest(url: url, method: .post, body: Array(query.utf8))
            request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        } else {
            request = TransportRequest(url: URL(string: getURL) ?? url)
        }
        if let credential, placement == .header {
            var unchanged = TransportOptions()
            credential.attach(to: &request, options: &unchanged)
        } else if let referer = credential?.referer {
            request.setHeader("Referer", referer)
        }
        return request
    }
}
