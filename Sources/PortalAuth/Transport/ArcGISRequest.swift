public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An ArcGIS REST request: a URL and form parameters. The manager adds `f=json`, the token,
/// and chooses GET or POST (POST when the URL would exceed 2,000 characters).
public struct ArcGISRequest: Sendable {
    /// How the method is chosen.
    public enum Method: Sendable { case automatic, get, post }
    /// Where the token goes.
    public enum TokenPlacement: Sendable { case header, parameter }

    /// The URL, without the parameters below (it may carry its own query).
    public var url: URL
    /// Form parameters, in order.
    public var parameters: [(String, String)]
    /// GET, POST, or automatic.
    public var method: Method
    /// Header (`X-Esri-Authorization: Bearer`) or `token` parameter.
    public var tokenPlacement: TokenPlacement
    /// Whether the response must be JSON (adds `f=json` unless `f` is given).
    public var expectsJSON: Bool

    /// Creates a request.
    public init(
        url: URL, parameters: [(String, String)] = [], method: Method = .automatic,
        tokenPlacement: TokenPlacement = .header, expectsJSON: Bool = true
    ) {
        self.url = url
        self.parameters = parameters
        self.method = method
        self.tokenPlacement = tokenPlacement
        self.expectsJSON = expectsJSON
    }

    /// The longest URL sent as GET.
    public static let maximumGETLength = 2000
}

/// The answer to an ``ArcGISRequest`` that succeeded (no ArcGIS error in the body).
public struct ArcGISResponse: Sendable {
    /// The HTTP response.
    public var http: TransportResponse
    /// The parsed JSON body, when the request expected JSON.
    public var json: JSONValue?
}

/// `application/x-www-form-urlencoded` encoding, as ArcGIS token services and OAuth token
/// endpoints read it: every byte outside the unreserved set percent-encoded (a space as `%20`).
public enum FormEncoding {
    private static let unreserved: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Percent-encodes one component.
    public static func escape(_ string: String) -> String {
        var out = ""
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }

    /// Encodes parameters, `name=value` pairs joined with `&`, in their order.
    public static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes a query string or form body.
    package static func decode(_ string: String) -> [(String, String)] {
        string.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ s: Substring) -> String {
                let bytes = Array(s.utf8)
                var out: [UInt8] = []
                var i = 0
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hexDigit(bytes[i + 1]),
                        let low = hexDigit(bytes[i + 2])
                    {
                        out.append(high << 4 | low); i += 3
                    } else {
                        out.append(bytes[i] == UInt8(ascii: "+") ? 0x20 : bytes[i]); i += 1
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// The value of an ASCII hexadecimal digit (`UInt8(_:radix:)` also takes a sign: `%+F`).
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

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

extension ServerContext {
    /// `scheme://host:port/path` of a URL for messages (never its query string, which may hold a
    /// token): where the scheme matters, as in "this is not an ArcGIS server".
    public static func describeWithScheme(_ url: URL) -> String {
        let host = url.host(percentEncoded: false) ?? "?"
        let scheme = url.scheme?.lowercased() ?? "https"
        let port = url.port ?? (scheme == "http" ? 80 : 443)
        let authority = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(authority):\(port)\(url.path(percentEncoded: true))"
    }

    /// The error of an HTTP status that is not success and came without an ArcGIS error: a 404
    /// or 405 says the URL is not an ArcGIS portal or server (or not one of its endpoints).
    package static func httpStatusError(_ url: URL, status: Int) -> PortalAuthError {
        let place = describeWithScheme(url)
        switch status {
        case 404, 405:
            return PortalAuthError(
                .httpError,
                "\(place) answered HTTP \(status) (\(status == 404 ? "not found" : "method not allowed")): it is not "
                    + "an ArcGIS portal or server, or the URL does not lead to one",
                remedy: .checkURL, cause: .httpStatus(status))
        default:
            return PortalAuthError(
                .httpError, "\(place) answered HTTP \(status)", remedy: status >= 500 ? .retryLater : .checkURL,
                cause: .httpStatus(status))
        }
    }

    /// `host:port/path` of a URL for messages (never its query string, which may hold a token).
    public static func describe(_ url: URL) -> String {
        let host = url.host(percentEncoded: false) ?? "?"
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return "\(host):\(port)\(url.path(percentEncoded: true))"
    }
}
