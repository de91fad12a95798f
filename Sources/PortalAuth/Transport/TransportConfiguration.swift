#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
