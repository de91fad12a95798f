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
    /// Where a long success body goes as it arrives instead of into ``TransportResponse/body``
    /// (a local proxy's answers); nil reads every body whole.
    package var responseStream: ResponseBodyStream?
    /// A body read from a local client as it arrives, sent with its announced length instead of
    /// ``body`` (once: such a request is not sent again).
    package var bodyStream: RequestBodyStream?

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
