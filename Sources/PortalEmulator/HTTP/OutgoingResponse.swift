/// A complete answer, or the instruction to drop the connection without one.
struct OutgoingResponse: Sendable {
    /// HTTP status code.
    var status: Int
    /// Header fields in order.
    var headers: [(String, String)]
    /// The body bytes.
    var body: [UInt8]
    /// When true nothing is written: the connection is reset (fault `connectionReset`).
    var resetConnection = false

    init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `application/json; charset=utf-8`
    static func json(_ value: JSONValue, pretty: Bool = false, status: Int = 200) -> OutgoingResponse {
        OutgoingResponse(
            status: status,
            headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Array(value.serialized(pretty: pretty).utf8)
        )
    }

    /// `text/html; charset=utf-8`
    static func html(_ text: String, status: Int = 200) -> OutgoingResponse {
        OutgoingResponse(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(text.utf8))
    }

    /// `text/plain; charset=utf-8`
    static func text(_ text: String, status: Int = 200) -> OutgoingResponse {
        OutgoingResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// A 302 redirect.
    static func redirect(to location: String, status: Int = 302) -> OutgoingResponse {
        OutgoingResponse(
            status: status,
            headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
            body: Array("Redirecting to \(location)\n".utf8)
        )
    }

    /// A 302 to `target` with `parameters` (and `state`, when given) added to its query, as an
    /// authorization server answers a redirect URI.
    static func redirect(to target: String, adding parameters: [(String, String)], state: String?) -> OutgoingResponse {
        var parameters = parameters
        if let state { parameters.append(("state", state)) }
        let query = parameters.map { "\($0.0)=\(FormCoding.encode($0.1))" }.joined(separator: "&")
        return .redirect(to: target + (target.contains("?") ? "&" : "?") + query)
    }

    /// Drop the connection without an answer.
    static var reset: OutgoingResponse {
        var response = OutgoingResponse()
        response.resetConnection = true
        return response
    }

    /// Plain 404 for paths the emulator does not know at all.
    static func notFound(_ path: String) -> OutgoingResponse {
        .text("Not Found: \(path)\n", status: 404)
    }
}

/// An ArcGIS error body: `{"error":{"code":..,"message":..,"messageCode"?:..,"details":[..]}}`,
/// sent with HTTP 200 like the real services do.
struct ArcGISError: Error, Sendable, Equatable {
    /// The ArcGIS error code (498, 499, 400, 403, ...).
    var code: Int
    /// The human-readable message.
    var message: String
    /// The optional message code, e.g. `GWM_0003`.
    var messageCode: String?
    /// Details, often empty.
    var details: [String] = []

    /// 499 Token Required.
    static let tokenRequired = ArcGISError(code: 499, message: "Token Required", messageCode: "GWM_0003")
    /// 498 Invalid token.
    static let invalidToken = ArcGISError(code: 498, message: "Invalid token.")
    /// 403 SSL Required (token operations over plain HTTP).
    static let sslRequired = ArcGISError(
        code: 403, message: "SSL Required", details: ["Token requests must use HTTPS."])
    /// 400 from generateToken for bad credentials.
    static let badCredentials = ArcGISError(
        code: 400, message: "Unable to generate token.", details: ["Invalid username or password."])

    /// 400 Invalid or missing input parameters, with details.
    static func invalidInput(_ details: [String]) -> ArcGISError {
        ArcGISError(code: 400, message: "Invalid or missing input parameters.", details: details)
    }

    /// The JSON body.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("code", .number(code)), ("message", .string(message))]
        if let messageCode { members.append(("messageCode", .string(messageCode))) }
        members.append(("details", .array(details.map(JSONValue.string))))
        return .object([("error", .object(members))])
    }
}
