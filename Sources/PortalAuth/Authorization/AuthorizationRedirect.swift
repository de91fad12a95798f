#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where the authorization server sends the browser back to, and so how the code comes back.
public enum AuthorizationRedirect: Sendable, Equatable, CustomStringConvertible {
    /// `urn:ietf:wg:oauth:2.0:oob`: the portal shows the code and the user pastes it.
    public static let outOfBandURI = "urn:ietf:wg:oauth:2.0:oob"

    /// A loopback listener on 127.0.0.1 (RFC 8252 §7.3): on `port`, or on a free port when nil;
    /// the redirect URI is `http://HOST:PORT<path>`, HOST being `127.0.0.1` (recommended) or
    /// `localhost` as configured.
    case loopback(host: String, port: Int?, path: String)
    /// Out of band: the portal's approval page shows the code, which the user pastes.
    case outOfBand
    /// A configured redirect URL handled elsewhere (an app, a web page): the user pastes the URL
    /// the browser was sent to (or just its code).
    case custom(URL)

    /// Classifies a configured redirect URL: `urn:ietf:wg:oauth:2.0:oob`, `http://127.0.0.1[:PORT]/path`
    /// or `http://localhost[:PORT]/path` (loopback), anything else (custom).
    public init(_ string: String) throws {
        if string == Self.outOfBandURI { self = .outOfBand; return }
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
            url.host(percentEncoded: false) != nil
        else {
            throw PortalAuthError(
                .invalidURL,
                "the redirect URL '\(string)' is not a URL (http://127.0.0.1:PORT/path, \(Self.outOfBandURI), or the "
                    + "app's registered URL)"
            )
        }
        let host = url.host(percentEncoded: false)!.lowercased()
        if scheme == "http", host == "127.0.0.1" || host == "localhost" {
            if let port = url.port, !(1...65535).contains(port) {
                throw PortalAuthError(.invalidURL, "the redirect URL '\(string)' has an invalid port")
            }
            let path = url.path(percentEncoded: true)
            self = .loopback(host: host, port: url.port, path: path.isEmpty ? "/" : path)
            return
        }
        self = .custom(url)
    }

    /// The default: a loopback listener on a free port at `/oauth/callback`.
    public static var defaultLoopback: AuthorizationRedirect {
        .loopback(host: "127.0.0.1", port: nil, path: "/oauth/callback")
    }

    /// The `redirect_uri` to send once the listener (if any) is on `boundPort`.
    public func redirectURI(boundPort: Int?) -> String {
        switch self {
        case .loopback(let host, let port, let path): return "http://\(host):\(boundPort ?? port ?? 0)\(path)"
        case .outOfBand: return Self.outOfBandURI
        case .custom(let url): return url.absoluteString
        }
    }

    /// The configured form (a loopback without a port has none).
    public var description: String {
        switch self {
        case .loopback(let host, let port, let path): return "http://\(host)\(port.map { ":\($0)" } ?? "")\(path)"
        case .outOfBand: return Self.outOfBandURI
        case .custom(let url): return url.absoluteString
        }
    }
}
