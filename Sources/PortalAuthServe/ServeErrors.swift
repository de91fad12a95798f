import PortalAuth

/// How `serve` answers a local client when the core or the remote server said no: ArcGIS's own
/// error body (`{"error":{"code":...,"message":...}}`, which QGIS, GDAL and the ArcGIS API for
/// Python read) with an HTTP status that says who refused.
enum ServeErrors {
    /// The answer for `error`: 403 when no credential covers the URL or its token would go over plain
    /// http (nothing was contacted), the remote status or ArcGIS error when the server refused, 502 or
    /// 504 when it could not be reached (`ServeErrorsTests`).
    static func response(
        for error: any Error, describe: (PortalAuthError) -> String
    ) -> LoopbackHTTPServer.Response {
        let failure: PortalAuthError
        if let error = error as? PortalAuthError {
            failure = error
        } else if let challenge = error as? TransportChallengeError {
            failure = challenge.error
        } else {
            return body(status: 500, code: 500, message: "the local server failed: \(error)")
        }
        let message = describe(failure)
        switch failure.cause {
        case .arcGIS(let code, _, let text, let details)?:
            return body(status: 200, code: code, message: text, details: details)
        case .httpStatus(let status)?:
            return body(status: status, code: status, message: message)
        default:
            break
        }
        if failure.meansNoCredentialCovers || failure.code == .invalidToken || failure.code == .authenticationFailed
            || failure.code == .insecureTransport
        {
            return body(status: 403, code: 403, message: message)
        }
        switch failure.code {
        case .invalidURL, .invalidArgument: return body(status: 400, code: 400, message: message)
        case .timedOut: return body(status: 504, code: 504, message: message)
        default: return body(status: 502, code: 502, message: message)
        }
    }

    /// An ArcGIS error body with `status`.
    static func body(status: Int, code: Int, message: String, details: [String] = []) -> LoopbackHTTPServer.Response {
        let error: JSONValue = .object([
            "error": .object([
                "code": .number(Double(code)), "message": .string(message),
                "details": .array(details.map { .string($0) }),
            ])
        ])
        return LoopbackHTTPServer.Response(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Array((error.description + "\n").utf8))
    }
}
