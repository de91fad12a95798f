public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What plugins and credentials may use: the raw transport (no authentication added),
/// ArcGIS form posts, token-service discovery, and the logger.
public struct AuthenticationServices: Sendable {
    /// The transport.
    public let transport: any HTTPTransport
    /// The logger (never give it a secret).
    public let logger: Logging.Logger

    /// Creates services over a transport.
    public init(transport: any HTTPTransport, logger: Logging.Logger) {
        self.transport = transport
        self.logger = logger
    }

    /// POSTs form parameters to an ArcGIS endpoint without any credential, adds `f=json`,
    /// and returns the JSON body; an ArcGIS error body throws ``PortalAuthError`` with the ArcGIS cause.
    ///
    /// - Parameter requireHTTPS: refuse a plain-http URL (token services carry passwords).
    public func postForm(
        _ url: URL, _ parameters: [(String, String)], requireHTTPS: Bool = true,
        headers: [(name: String, value: String)] = []
    ) async throws -> JSONValue {
        if requireHTTPS, url.scheme?.lowercased() != "https" {
            throw PortalAuthError(
                .insecureTransport,
                "refusing to send credentials to \(URLRedaction.redact(url.absoluteString)) over plain http",
                remedy: .useHTTPS(url: url))
        }
        var parameters = parameters
        if !parameters.contains(where: { $0.0 == "f" }) { parameters.append(("f", "json")) }
        var request = TransportRequest(
            url: url, method: .post, headers: headers, body: Array(FormEncoding.encode(parameters).utf8),
            maxResponseSize: TransportRequest.maxJSONResponseSize)
        request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        return try Self.checkedJSON(try await sendWithoutCredential(request), from: url)
    }

    /// The JSON of an ArcGIS answer from `url`, checked as every answer is: an ArcGIS error body
    /// (ArcGIS errors usually come with HTTP 200), then an HTTP status that is not 2xx, then JSON
    /// that does not parse, each throws.
    static func checkedJSON(_ response: TransportResponse, from url: URL) throws -> JSONValue {
        if let failure = answerFailure(response, from: url) { throw failure.error }
        return try JSONValue.parse(response.body, source: ServerContext.describeWithScheme(url))
    }

    /// The one check of an ArcGIS answer from `url`: an ArcGIS error body (with the error it
    /// becomes), then an HTTP status that is not 2xx; nil for an answer that is neither. The
    /// request loop reads `arcGIS` to tell a challenge from a failure.
    static func answerFailure(
        _ response: TransportResponse, from url: URL
    ) -> (arcGIS: ArcGISError?, error: PortalAuthError)? {
        if let error = ArcGISError.parse(response.body) { return (error, PortalAuthError.arcGIS(error, from: url)) }
        guard (200..<300).contains(response.status) else {
            return (nil, ServerContext.httpStatusError(url, status: response.status))
        }
        return nil
    }

    /// Sends a request with no credential; a TLS challenge becomes its error.
    func sendWithoutCredential(_ request: TransportRequest) async throws -> TransportResponse {
        let response: TransportResponse
        // Sign-in requests (token services, OAuth, info) log as the manager's requests do.
        logger.debug(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "url": "\(URLRedaction.redact(request.url.absoluteString))",
                "credential": "none",
            ])
        do {
            response = try await transport.send(request, options: TransportOptions())
        } catch let challenge as TransportChallengeError {
            logger.debug("request failed", metadata: ["error": "\(challenge.error.message)"])
            throw challenge.error
        } catch let error as PortalAuthError {
            logger.debug("request failed", metadata: ["error": "\(error.message)"])
            throw error
        }
        logger.debug(
            "response",
            metadata: [
                "status": "\(response.status)", "url": "\(URLRedaction.redact(request.url.absoluteString))",
            ])
        // A proxy in front of the host sends API calls to its identity provider's sign-in page.
        if let location = IAPAuthenticationChallenge.signInRedirect(from: request.url, response: response) {
            throw PortalAuthError(
                .authenticationRequired,
                "\(ServerContext.describe(request.url)) is behind an identity-aware proxy that wants sign-in (HTTP "
                    + "\(response.status) to \(ServerContext.describe(location)))",
                remedy: .signIn(.identityAwareProxy()), cause: .httpStatus(response.status))
        }
        return response
    }

    /// GETs `url?f=json` without any credential and returns the JSON body.
    public func getJSON(_ url: URL) async throws -> JSONValue {
        let separator = url.absoluteString.contains("?") ? "&" : "?"
        guard let full = URL(string: url.absoluteString + separator + "f=json") else {
            throw PortalAuthError(
                .invalidURL, "cannot build a request URL from \(URLRedaction.redact(url.absoluteString))")
        }
        let response = try await sendWithoutCredential(
            TransportRequest(url: full, maxResponseSize: TransportRequest.maxJSONResponseSize))
        return try Self.checkedJSON(response, from: url)
    }

    /// The token service of a server context: `authInfo.tokenServicesUrl` from its `info`
    /// endpoint (`/sharing/rest/info` for a portal, `/rest/info` for an ArcGIS Server), or the
    /// conventional URL when the info cannot be read.
    ///
    /// Passwords go to the token service, so one the context would not send them to (see
    /// ``ServerContext/acceptsTokenService(_:)``) is not used: the conventional URL on the
    /// context's own host is. (A portal behind a reverse proxy or web adaptor often names its
    /// internal address.)
    public func tokenServiceURL(for context: ServerContext, isPortal: Bool = true) async -> URL {
        let conventional = URL(
            string: context.url + (isPortal ? "/sharing/rest/generateToken" : "/tokens/generateToken"))!
        let infoURL = URL(string: context.url + (isPortal ? "/sharing/rest/info" : "/rest/info"))!
        if let info = try? await getJSON(infoURL), let string = info["authInfo"]?["tokenServicesUrl"]?.stringValue,
            let url = URL(string: string)
        {
            guard context.acceptsTokenService(url) else {
                logger.warning(
                    "ignoring a token service on another host",
                    metadata: ["server": "\(context)", "named": "\(ServerContext.describe(url))"])
                return conventional
            }
            return url
        }
        return conventional
    }
}
