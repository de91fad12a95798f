import Logging

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
    /// Whether a redirect (301, 302, 303, 307, 308 with a `Location`) is followed (the default:
    /// the credential is chosen again for the new URL). When false, the redirect is the answer, for
    /// a caller that decides itself whether its target may be contacted (a local proxy).
    public var followsRedirects = true
    /// Where a long success body goes as it arrives (see ``ResponseBodyStream``): every attempt
    /// whose answer is short or not a success (a refused token, a redirect) is still read whole, so
    /// the manager can answer it and send the request again.
    package var responseStream: ResponseBodyStream?
    /// A form body read from a local client as it arrives (``RequestBodyStream``), sent as the
    /// POST's body while ``parameters`` go in the URL's query. It is sent once: after a refusal the
    /// credential is renewed but the request fails (``PortalAuthError/Code/invalidToken``, an
    /// ArcGIS 498) for its sender to send again.
    package var bodyStream: RequestBodyStream?

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
