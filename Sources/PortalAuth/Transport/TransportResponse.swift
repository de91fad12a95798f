#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
        headers.first { ASCIIText.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of headers with this name (case-insensitive), for example each `WWW-Authenticate`.
    public func headers(named name: String) -> [String] {
        headers.filter { ASCIIText.equalsIgnoringCase($0.name, name) }.map(\.value)
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
