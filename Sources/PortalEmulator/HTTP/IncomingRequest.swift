/// How the caller asked for the answer (`f=`).
enum ResponseFormat: Sendable, Equatable {
    /// `f=json`
    case json
    /// `f=pjson`: indented JSON
    case prettyJSON
    /// `f=html` or no `f` at all: the "ArcGIS Portal Directory" page
    case html
    /// Any other value of `f`
    case unsupported(String)
}

/// One HTTP request, reduced to what the emulator needs: the decoded path, the parameters
/// (query and form body merged, names lower-cased as ArcGIS treats them case-insensitively)
/// and the headers.
struct IncomingRequest: Sendable {
    /// Upper-case HTTP method.
    let method: String
    /// Percent-decoded path without a trailing slash ("/" for the root).
    let path: String
    /// Path components, without empty ones.
    let components: [String]
    /// Parameters from the query string and, for form posts, the body (the body wins).
    let parameters: [String: String]
    /// Header values by lower-cased name (the first occurrence of a repeated header).
    let headers: [String: String]
    /// The raw body.
    let body: [UInt8]
    /// True when the request arrived on the TLS listener.
    let isSecure: Bool
    /// The peer's IP address, when known.
    let remoteIP: String?
    /// True when the request came through the application proxy's listener.
    var viaProxy = false

    init(method: String, target: String, headers: [String: String], body: [UInt8], isSecure: Bool, remoteIP: String?) {
        self.method = method.uppercased()
        self.headers = headers
        self.body = body
        self.isSecure = isSecure
        self.remoteIP = remoteIP
        let question = target.firstIndex(of: "?")
        let rawPath = question.map { target[..<$0] } ?? target[...]
        let decodedComponents = rawPath.split(separator: "/").map { FormCoding.decode($0, plusIsSpace: false) }
        self.components = decodedComponents
        self.path = "/" + decodedComponents.joined(separator: "/")
        var parameters: [String: String] = [:]
        if let question {
            for (name, value) in FormCoding.parse(target[target.index(after: question)...]) {
                parameters[name.lowercased()] = value
            }
        }
        let contentType = headers["content-type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded"), !body.isEmpty {
            let text = String(decoding: body, as: UTF8.self)
            for (name, value) in FormCoding.parse(text[...]) {
                parameters[name.lowercased()] = value
            }
        }
        self.parameters = parameters
    }

    /// A parameter's value, nil when absent or empty (ArcGIS treats both alike).
    func parameter(_ name: String) -> String? {
        guard let value = parameters[name.lowercased()], !value.isEmpty else { return nil }
        return value
    }

    /// The `Host` header without the port, lower-cased; IPv6 brackets removed.
    var host: String {
        guard var host = headers["host"]?.lowercased(), !host.isEmpty else { return "" }
        if host.hasPrefix("[") {
            if let close = host.firstIndex(of: "]") {
                host = String(host[host.index(after: host.startIndex)..<close])
            }
            return host
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        return host
    }

    /// True when the peer is on this machine (127.0.0.0/8 or ::1, also IPv4-mapped).
    var isFromLoopback: Bool {
        guard var ip = remoteIP?.lowercased() else { return false }
        if ip.hasPrefix("::ffff:") { ip = String(ip.dropFirst("::ffff:".count)) }
        return ip == "::1" || ip.hasPrefix("127.")
    }

    /// The response format asked for by `f`.
    var format: ResponseFormat {
        switch parameter("f")?.lowercased() {
        case nil, "html": return .html
        case "json": return .json
        case "pjson": return .prettyJSON
        case let other?: return .unsupported(other)
        }
    }

    /// True when `Authorization` carries a token the emulated Entra ID issued (it is then not an
    /// ArcGIS token, even outside the proxy).
    var authorizationIsEntraToken = false

    /// The ArcGIS token this request presents: `X-Esri-Authorization: Bearer <t>` first, then
    /// `Authorization: Bearer <t>` (as ArcGIS Enterprise 11.x accepts it, except behind the
    /// application proxy, whose web tier uses that header for its own Entra token), then the
    /// `token` parameter.
    var token: String? {
        if let header = headers["x-esri-authorization"], let value = Self.bearer(header) { return value }
        if let value = authorizationBearer { return value }
        return parameter("token")
    }

    /// Where ``token`` came from: `x-esri-authorization`, `bearer` (the `Authorization` header)
    /// or `token` (the parameter); nil without one.
    var tokenCarrier: String? {
        if let header = headers["x-esri-authorization"], Self.bearer(header) != nil { return "x-esri-authorization" }
        if authorizationBearer != nil { return "bearer" }
        return parameter("token") != nil ? "token" : nil
    }

    /// `Authorization: Bearer <t>` read as an ArcGIS token: not through the proxy and not an Entra token.
    private var authorizationBearer: String? {
        guard !viaProxy, !authorizationIsEntraToken, let header = headers["authorization"] else { return nil }
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bearer ") else { return nil }
        return Self.bearer(trimmed)
    }

    /// True when the request carries any credential-like token: X-Esri-Authorization,
    /// Authorization or a `token` parameter.
    var carriesAnyToken: Bool {
        if let header = headers["x-esri-authorization"], !header.trimmingWhitespace().isEmpty { return true }
        if let header = headers["authorization"], !header.trimmingWhitespace().isEmpty { return true }
        return parameter("token") != nil
    }

    /// Every token-like value the request carries, wherever it sits: `X-Esri-Authorization`,
    /// `Authorization` (even when it is not read as an ArcGIS token) and the `token` parameter.
    var presentedTokens: [String] {
        var found: [String] = []
        for name in ["x-esri-authorization", "authorization"] {
            if let header = headers[name], let value = Self.bearer(header) { found.append(value) }
        }
        if let value = parameter("token") { found.append(value) }
        return found
    }

    /// `https://HOST:PORT` (or `http://`) as the client addressed this listener: the scheme and
    /// the `Host` header, lower-cased ("(none)" without one, "(long)" past 255 characters).
    var origin: String {
        let host = headers["host"]?.lowercased().trimmingWhitespace() ?? ""
        let shown = host.isEmpty ? "(none)" : host.count > 255 ? "(long)" : host
        return (isSecure ? "https://" : "http://") + shown
    }

    /// The value after `Bearer ` (case-insensitive scheme), nil when empty.
    static func bearer(_ header: String) -> String? {
        let trimmed = header.trimmingWhitespace()
        let prefix = "bearer "
        let value: Substring
        if trimmed.lowercased().hasPrefix(prefix) {
            value = trimmed.dropFirst(prefix.count)
        } else {
            value = trimmed[...]
        }
        let token = String(value).trimmingWhitespace()
        return token.isEmpty ? nil : token
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
