public import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The browser part of the authorization-code flow with PKCE: builds the authorization URL with a
/// fresh verifier and state, shows it through an ``AuthorizationUserAgent``, gets the code back
/// (loopback listener, pasted code, or pasted URL) and checks the state.
public enum AuthorizationCodeFlow {
    /// Runs the flow up to the code. Nothing is stored; the caller exchanges the code.
    public static func authorize(
        _ request: AuthorizationCodeRequest, userAgent: any AuthorizationUserAgent, logger: Logger
    ) async throws -> AuthorizationCodeGrant {
        let pkce = try PKCE()
        let state = try PKCE.makeState()
        let server = ServerContext.describe(request.authorizeURL)

        var listener: LoopbackRedirectListener?
        if case .loopback(_, let port, _) = request.redirect { listener = try LoopbackRedirectListener(port: port) }
        let redirectURI = request.redirect.redirectURI(boundPort: listener?.port)

        var parameters = [
            ("client_id", request.clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("state", state),
            ("code_challenge", pkce.codeChallenge), ("code_challenge_method", pkce.codeChallengeMethod),
        ]
        if !request.scopes.isEmpty { parameters.append(("scope", request.scopes.joined(separator: " "))) }
        if let prompt = request.prompt, !prompt.isEmpty { parameters.append(("prompt", prompt)) }
        parameters += request.extraParameters
        let base = request.authorizeURL.absoluteString
        guard let url = URL(string: base + (base.contains("?") ? "&" : "?") + FormEncoding.encode(parameters)) else {
            throw PortalAuthError(.invalidURL, "cannot build the authorization URL from \(URLRedaction.redact(base))")
        }
        logger.debug("authorization code flow", metadata: ["server": "\(server)", "redirect": "\(request.redirect)"])

        try await userAgent.present(url, redirectURI: redirectURI)
        let answer: [String: String]
        switch request.redirect {
        case .loopback(_, _, let path):
            answer = try await listener!.waitForRedirect(path: path, expectedState: state, timeout: request.timeout)
        case .outOfBand:
            let pasted = try await userAgent.readPastedResponse("Paste the code the portal shows after you sign in: ")
            answer = parsePasted(pasted, expectURL: false)
        case .custom(let redirectURL):
            let pasted = try await userAgent.readPastedResponse(
                "Paste the address the browser was sent to (\(redirectURL.absoluteString)?code=…): ")
            answer = parsePasted(pasted, expectURL: true)
        }
        return try check(
            answer, state: state, expectState: request.redirect != .outOfBand, server: server, redirectURI: redirectURI,
            verifier: pkce.codeVerifier)
    }

    /// The parameters in what the user pasted: a bare code, `SUCCESS code=…` (the ArcGIS approval
    /// page's title), or a URL or query string with `code`, `state`, `error`.
    static func parsePasted(_ text: String, expectURL: Bool) -> [String: String] {
        let trimmed =
            text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map { String($0).trimmingSpaces() } ?? ""
        if let mark = trimmed.firstIndex(of: "?") {
            return LoopbackRedirectRequest.parseQuery(
                String(trimmed[trimmed.index(after: mark)...]).split(separator: "#").first.map(String.init) ?? "")
        }
        if trimmed.hasPrefix("SUCCESS code=") { return ["code": String(trimmed.dropFirst("SUCCESS code=".count))] }
        if trimmed.contains("code=") || trimmed.contains("error=") {
            return LoopbackRedirectRequest.parseQuery(trimmed)
        }
        return trimmed.isEmpty ? [:] : ["code": trimmed]
    }

    static func check(
        _ answer: [String: String], state: String, expectState: Bool, server: String, redirectURI: String,
        verifier: String
    ) throws -> AuthorizationCodeGrant {
        if let error = answer["error"] {
            let description = answer["error_description"].map { ": \($0)" } ?? ""
            if error == "access_denied" {
                throw PortalAuthError(
                    .authenticationFailed,
                    "the sign-in at \(server) was declined (access_denied\(description)); nothing was stored",
                    cause: .oauth(error: error, description: answer["error_description"]))
            }
            throw PortalAuthError(
                .authenticationFailed,
                "the sign-in at \(server) failed (\(error)\(description)); nothing was stored",
                remedy: .checkAppRegistration(server: server),
                cause: .oauth(error: error, description: answer["error_description"]))
        }
        if expectState, answer["state"] != state {
            throw PortalAuthError(
                .authenticationFailed,
                "the answer from the browser does not belong to this sign-in (the state differs), so it was refused; "
                    + "nothing was stored",
                remedy: .startOver, cause: .other("state mismatch"))
        }
        guard let code = answer["code"], !code.isEmpty else {
            throw PortalAuthError(
                .invalidResponse, "no authorization code came back from \(server); nothing was stored",
                remedy: .startOver)
        }
        return AuthorizationCodeGrant(code: code, redirectURI: redirectURI, codeVerifier: verifier)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
