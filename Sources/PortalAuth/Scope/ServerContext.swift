#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The server a credential belongs to: a portal (its URL up to `/sharing`), an ArcGIS Server
/// (its root up to `/rest`), or a web host (`scheme://host:port`, for network credentials).
///
/// A token is only attached to requests inside its own context: same host, same port, and a
/// path under the context's path. The scheme is checked separately through
/// ``TokenInfo/isSSLRequired``.
public struct ServerContext: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The normalized URL: lower-case scheme and host, no default port, no trailing slash, no query.
    public let url: String
    /// The lower-case scheme.
    public let scheme: String
    /// The lower-case host.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int
    /// The path, without a trailing slash (empty for the host root).
    public let path: String

    /// Creates the context a URL belongs to: up to `/sharing` for a portal URL, up to `/rest`
    /// (or `/tokens`, `/admin`) for an ArcGIS Server URL, otherwise the URL itself.
    ///
    /// Throws ``PortalAuthError/Code/invalidURL`` for a URL without an http(s) scheme or host, and
    /// for one that URL readers could read differently (see the package's strict URL reading:
    /// userinfo, backslashes, encoded `/` or `.` in the path, non-canonical hosts).
    public init(url: URL) throws {
        let parts = try ServerContext.parts(of: url)
        self.init(
            scheme: parts.scheme, host: parts.host, port: parts.port, path: ServerContext.contextPath(of: parts.path))
    }

    /// Creates the context from a string URL (see ``init(url:)``).
    public init(_ string: String) throws {
        try self.init(url: StrictURL.parse(string).url)
    }

    /// Whether a token service at `url` may receive this context's passwords: one of its own
    /// token endpoints, without a query string (see ``isOwnTokenService(_:)``).
    public func acceptsTokenService(_ url: URL) -> Bool { isOwnTokenService(url) }

    /// True for arcgis.com and its subdomains; "evilarcgis.com" is not one of them.
    public static func isArcGISOnline(_ host: String) -> Bool {
        host == "arcgis.com" || host.hasSuffix(".arcgis.com")
    }

    /// The host-level context of a URL (`scheme://host:port`), as network credentials use it.
    public static func host(of url: URL) throws -> ServerContext {
        let parts = try parts(of: url)
        return ServerContext(scheme: parts.scheme, host: parts.host, port: parts.port, path: "")
    }

    init(scheme: String, host: String, port: Int, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        let path = Self.trimmingTrailingSlashes(path)
        self.path = path
        let defaultPort = scheme == "https" ? 443 : 80
        let hostPart = host.contains(":") ? "[\(host)]" : host
        self.url = "\(scheme)://\(hostPart)\(port == defaultPort ? "" : ":\(port)")\(path)"
    }

    /// Whether a URL is inside this context (host, port and path prefix; scheme aside).
    public func contains(_ other: URL) -> Bool {
        guard let parts = try? ServerContext.parts(of: other) else { return false }
        guard parts.host == host, parts.port == port else { return false }
        if path.isEmpty { return true }
        return parts.path == path || parts.path.hasPrefix(path + "/")
    }

    /// Whether this context is an ArcGIS portal (its URL was taken up to `/sharing`, or it is
    /// the URL a user gave as a portal).
    public var portalRESTURL: String { url + "/sharing/rest" }

    /// The contexts a URL may belong to, most specific first: the portal or server root it names,
    /// then each shorter path prefix of at most ``maximumCandidateDepth`` segments, down to the
    /// host root. At most that many and two: a lookup's work stays linear in the URL's length.
    public static func candidates(for url: URL) throws -> [ServerContext] {
        let parts = try parts(of: url)
        let primary = contextPath(of: parts.path)
        func context(_ path: Substring) -> ServerContext {
            ServerContext(scheme: parts.scheme, host: parts.host, port: parts.port, path: String(path))
        }
        // The ends of the primary path's first prefixes (each before a `/`), shortest first.
        var ends: [String.Index] = []
        for index in primary.indices.dropFirst() where primary[index] == "/" {
            guard ends.count < maximumCandidateDepth else { break }
            ends.append(index)
        }
        // Prefixes that differ only in trailing slashes are the same context, and come one after another.
        var result = [context(primary[...])]
        for candidate in ends.reversed().map({ context(primary[..<$0]) }) + [context("")]
        where candidate != result.last {
            result.append(candidate)
        }
        return result
    }

    /// How deep a context below the one a URL names is looked for (in path segments): a stored
    /// context deeper than this applies only to URLs whose own context it is.
    public static let maximumCandidateDepth = 8

    /// The ArcGIS Server root of a service URL (the part before `/rest`, `/tokens` or `/admin`),
    /// or `nil` when the URL is not on an ArcGIS Server.
    public static func arcGISServerRoot(of url: URL) -> ServerContext? {
        guard let parts = try? parts(of: url) else { return nil }
        let lower = parts.path.lowercased()
        let bytes = lower.utf8
        guard !ASCIIText.contains(bytes, "/sharing"),
            ASCIIText.contains(bytes, "/rest/") || ASCIIText.contains(bytes, "/tokens/")
                || ASCIIText.contains(bytes, "/admin/") || lower.hasSuffix("/rest") || lower.hasSuffix("/tokens")
                || lower.hasSuffix("/admin")
        else { return nil }
        return ServerContext(
            scheme: parts.scheme, host: parts.host, port: parts.port, path: contextPath(of: parts.path))
    }

    /// The context's URL.
    public var description: String { url }

    /// Orders contexts by URL.
    public static func < (lhs: ServerContext, rhs: ServerContext) -> Bool { lhs.url < rhs.url }

    /// Encodes as the URL string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(url)
    }

    /// Decodes from the URL string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let url = URL(string: string), let parts = try? ServerContext.parts(of: url) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a server context URL")
        }
        self.init(scheme: parts.scheme, host: parts.host, port: parts.port, path: parts.path)
    }

    // MARK: - Parsing

    struct Parts: Sendable, Equatable { var scheme: String; var host: String; var port: Int; var path: String }

    /// The parts of `url` in its one strict reading (``StrictURL``): refused when URL readers could
    /// disagree about it, with dot segments removed.
    /// The last few readings are kept (``RecentReadings``): one request asks this a dozen times.
    static func parts(of url: URL) throws -> Parts {
        try recentParts.parts(of: url.absoluteString, reading: readParts)
    }

    /// The last few readings of ``parts(of:)``.
    private static let recentParts = RecentURLParts(capacity: 8)

    /// ``parts(of:)`` without the kept readings.
    static func readParts(_ text: String) throws -> Parts {
        let strict = try StrictURL.parse(text)
        let path = trimmingTrailingSlashes(strict.path)
        return Parts(scheme: strict.scheme, host: strict.host, port: strict.port, path: path)
    }

    /// `path` without its trailing slashes, in one pass (removing them one by one took time
    /// quadratic in their number).
    static func trimmingTrailingSlashes(_ path: String) -> String {
        let bytes = path.utf8
        guard bytes.last == UInt8(ascii: "/") else { return path }
        guard let last = bytes.lastIndex(where: { $0 != UInt8(ascii: "/") }) else { return "" }
        return String(decoding: bytes[...last], as: UTF8.self)
    }

    /// The context path of a URL path: up to `/sharing`, else up to `/rest` / `/tokens` / `/admin`, else the path.
    /// Each marker is found in any case, followed by `/` or at the end; read as bytes (a strict URL's
    /// path is ASCII, percent-encoded), since every request of a long-running proxy asks this many times.
    static func contextPath(of path: String) -> String {
        let bytes = Array(path.utf8)
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte }
        func matches(_ marker: [UInt8], at start: Int) -> Bool {
            guard start + marker.count <= bytes.count else { return false }
            for offset in marker.indices where lower(bytes[start + offset]) != marker[offset] { return false }
            return true
        }
        for marker in contextMarkers {
            let found = (0...max(0, bytes.count - marker.count)).first { start in
                matches(marker, at: start)
                    && (start + marker.count == bytes.count || bytes[start + marker.count] == UInt8(ascii: "/"))
            }
            if let found {
                return String(decoding: bytes[..<found], as: UTF8.self)
            }
        }
        return path
    }

    /// The path segments that end a context, in the order ``contextPath(of:)`` looks for them.
    private static let contextMarkers = ["/sharing", "/rest", "/tokens", "/admin"].map { Array($0.utf8) }
}
