#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An HTTP request as the transport sends it: no authentication is added here.
public struct TransportRequest: Sendable {
    /// The HTTP method.
    public enum Method: String, Sendable {
        case get = "GET", post = "POST", head = "HEAD", delete = "DELETE", put = "PUT"
    }
    /// The absolute http or https URL.
    public var url: URL
    /// The method.
    public var method: Method
    /// Header fields, in order. Names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body, for POST and PUT.
    public var body: [UInt8]?
    /// A per-request deadline in seconds for the whole exchange, from connecting to the body's
    /// last byte (a body that never ends stops here); `nil` uses the transport's.
    public var timeout: Double?
    /// The most bytes of body this request accepts, counted after decompression; the transfer
    /// stops as soon as the answer is larger. `nil` uses the transport's
    /// (``TransportConfiguration/maxResponseSize``).
    public var maxResponseSize: Int?

    /// The limit for token endpoints and the small JSON answers that plugins read (4 MiB): they
    /// are a few kilobytes, and nothing larger is legitimate.
    public static let maxJSONResponseSize = 4 << 20

    /// Creates a request.
    public init(
        url: URL, method: Method = .get, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        timeout: Double? = nil, maxResponseSize: Int? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseSize = maxResponseSize
    }

    /// The value of the first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Sets a header, replacing any existing one with the same name.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.append((name, value))
    }
}

/// An HTTP response as the transport received it.
public struct TransportResponse: Sendable {
    /// The status code of the final response (no redirects are followed by the transport).
    public var status: Int
    /// Header fields of the final response, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// The URL that answered.
    public var url: URL

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], url: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The value of the first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of headers with this name (case-insensitive), for example each `WWW-Authenticate`.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// Whether a web server answers in HTTP that it wants a (valid) client certificate, as nginx
    /// does with `ssl_verify_client on` (400 "No required SSL certificate was sent" or "The SSL
    /// certificate error", 495/496) and IIS with 403.7, instead of ending the TLS handshake.
    public var demandsClientCertificate: Bool {
        guard [400, 403, 495, 496].contains(status) else { return false }
        let text = String(decoding: body.prefix(4096), as: UTF8.self).lowercased()
        if status == 495 || status == 496 { return true }
        if text.contains("no required ssl certificate was sent") || text.contains("the ssl certificate error") {
            return true
        }
        return status == 403 && (text.contains("403.7") || text.contains("client certificate required"))
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Per-request settings that network credentials contribute (see ``NetworkCredential``).
///
/// The transport applies them to this request only: nothing here changes another host's requests.
public struct TransportOptions: Sendable, Equatable {
    /// HTTP authentication schemes.
    public struct HTTPAuthSchemes: OptionSet, Sendable, Hashable, Codable {
        /// The raw bit mask.
        public let rawValue: Int
        /// Creates a set from its bit mask.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// HTTP Basic.
        public static let basic = HTTPAuthSchemes(rawValue: 1 << 0)
        /// HTTP Digest.
        public static let digest = HTTPAuthSchemes(rawValue: 1 << 1)
        /// NTLM.
        public static let ntlm = HTTPAuthSchemes(rawValue: 1 << 2)
        /// SPNEGO / Kerberos.
        public static let negotiate = HTTPAuthSchemes(rawValue: 1 << 3)
    }

    /// Username and password for HTTP authentication, restricted to `schemes`.
    public struct HTTPAuthentication: Sendable, Equatable {
        /// The user name (for Negotiate with a Kerberos ticket it may be empty).
        public var username: String
        /// The password.
        public var password: String
        /// The schemes libcurl may use.
        public var schemes: HTTPAuthSchemes
        /// Creates HTTP authentication settings.
        public init(username: String, password: String, schemes: HTTPAuthSchemes) {
            self.username = username
            self.password = password
            self.schemes = schemes
        }
    }

    /// A client certificate presented from memory.
    public struct ClientCertificate: Sendable, Equatable {
        /// The PKCS#12 bytes.
        public var pkcs12: [UInt8]
        /// The PKCS#12 password.
        public var password: String
        /// Creates client-certificate settings.
        public init(pkcs12: [UInt8], password: String) {
            self.pkcs12 = pkcs12
            self.password = password
        }
    }

    /// HTTP authentication for this request, if any.
    public var httpAuthentication: HTTPAuthentication?
    /// A client certificate for this request, if any.
    public var clientCertificate: ClientCertificate?
    /// A pinned public key (`sha256//BASE64`) that replaces CA verification for this host only.
    public var pinnedPublicKey: String?

    /// No options.
    public init(
        httpAuthentication: HTTPAuthentication? = nil, clientCertificate: ClientCertificate? = nil,
        pinnedPublicKey: String? = nil
    ) {
        self.httpAuthentication = httpAuthentication
        self.clientCertificate = clientCertificate
        self.pinnedPublicKey = pinnedPublicKey
    }
}

/// How a transport is set up.
public struct TransportConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caBundlePath: String?
    /// The default deadline of a request, in seconds, for the whole exchange: connecting,
    /// sending, and receiving the body to its last byte.
    public var timeout: Double
    /// The connect timeout, in seconds.
    public var connectTimeout: Double
    /// At most this many connections to one host at once (others queue and reuse them).
    public var maxConnectionsPerHost: Int
    /// The User-Agent header.
    public var userAgent: String
    /// The default maximum response size in bytes (after decompression) of a request that sets
    /// none (``TransportRequest/maxResponseSize``); 64 MiB.
    public var maxResponseSize: Int
    /// The most bytes of response headers, all lines of all response blocks together; 256 KiB.
    public var maxHeaderSize: Int
    /// The most response header lines, all response blocks together; 500.
    public var maxHeaderCount: Int
    /// A transfer slower than this many bytes per second for ``lowSpeedTime`` seconds is
    /// stopped (a stalled or trickling server); 1024 by default, 0 turns the check off.
    public var lowSpeedLimit: Int
    /// How long, in seconds, a transfer may stay below ``lowSpeedLimit``; 60 by default, as long
    /// as the default ``timeout``, so that a server that thinks for a while before it answers (a
    /// long ArcGIS query) is not cut off sooner than the deadline unless a program chooses to.
    public var lowSpeedTime: Double

    /// The default of ``maxResponseSize``: 64 MiB.
    public static let defaultMaxResponseSize = 64 << 20

    /// Creates a configuration. Proxies come from `http_proxy`, `https_proxy` and `no_proxy`, as libcurl reads them.
    public init(
        caBundlePath: String? = nil, timeout: Double = 60, connectTimeout: Double = 15, maxConnectionsPerHost: Int = 8,
        userAgent: String = "portal-auth/0.1", maxResponseSize: Int = TransportConfiguration.defaultMaxResponseSize,
        maxHeaderSize: Int = 256 << 10, maxHeaderCount: Int = 500, lowSpeedLimit: Int = 1024, lowSpeedTime: Double = 60
    ) {
        self.caBundlePath = caBundlePath
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.userAgent = userAgent
        self.maxResponseSize = maxResponseSize
        self.maxHeaderSize = maxHeaderSize
        self.maxHeaderCount = maxHeaderCount
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
    }
}

/// What the transport reports when the TLS layer, not HTTP, needs a decision.
public enum TransportChallenge: Sendable, Equatable {
    /// The server's certificate did not verify.
    case serverTrust(host: String, port: Int, reason: ServerTrustFailure, message: String)
    /// The server asked for a client certificate and none was presented (or it was refused).
    case clientCertificate(host: String, port: Int, message: String)
}

/// Why a server certificate did not verify.
public enum ServerTrustFailure: String, Sendable, Equatable, Codable {
    /// A self-signed certificate.
    case selfSigned = "self-signed"
    /// The certificate has expired (or is not yet valid).
    case expired
    /// The certificate does not name this host.
    case wrongHost = "wrong host"
    /// Signed by a CA that is not trusted.
    case unknownCA = "unknown CA"
    /// A pinned public key did not match.
    case pinMismatch = "pinned key mismatch"
    /// Anything else.
    case other
}

/// Sends HTTP requests. ``CurlTransport`` is the real one.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the final response without following redirects.
    ///
    /// Throws ``PortalAuthError`` for network failures: a server certificate that does not verify
    /// with code ``PortalAuthError/Code/untrustedServer`` and remedy
    /// ``PortalAuthError/Remedy/trustServer(host:port:)``, a client certificate demand with
    /// ``PortalAuthError/Remedy/provideClientCertificate(host:)``. (``CurlTransport`` wraps those in
    /// a package-internal error that also carries the ``TransportChallenge``, so that the
    /// ``AuthenticationManager`` can offer it to network credential handlers; the manager throws
    /// the ``PortalAuthError`` inside when no handler answers.)
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse

    /// Connects to `host:port` over TLS without sending a request and reports the server's
    /// certificate and whether it verifies (for server trust decisions).
    func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport
}

extension HTTPTransport {
    /// Transports that cannot inspect certificates say so.
    public func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        throw PortalAuthError(
            .internalError, "this transport (\(type(of: self))) cannot read a server's certificate (CurlTransport can)")
    }
}

/// An error that carries a ``TransportChallenge`` a network handler may answer: thrown by
/// ``CurlTransport`` (or another ``HTTPTransport``) and caught by the ``AuthenticationManager``,
/// which hands the challenge to the plugins. A plugin that sends requests through a transport of
/// its own catches it to tell a TLS demand (a server's untrusted certificate, a request for a
/// client certificate) from another failure; anything it reports is ``error``.
public struct TransportChallengeError: Error, Sendable {
    /// The challenge.
    public var challenge: TransportChallenge
    /// The error to report when no handler answers it.
    public var error: PortalAuthError
    /// Creates the error.
    public init(challenge: TransportChallenge, error: PortalAuthError) {
        self.challenge = challenge
        self.error = error
    }
}
