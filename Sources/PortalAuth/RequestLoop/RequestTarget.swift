#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a request goes and what it carries; a redirect changes it.
struct RequestTarget {
    var url: URL
    var method: ArcGISRequest.Method
    var parameters: [(String, String)]
    /// See ``ArcGISRequest/responseStream``.
    var responseStream: ResponseBodyStream?
    /// See ``ArcGISRequest/bodyStream``.
    var bodyStream: RequestBodyStream?
    /// The caller's decision for this URL (`send(_:as:)`): the first
    /// attempt's credentials; nil once that attempt went out.
    var decided: CredentialDecision?

    /// The first target of `request` (with `f=json` when it expects JSON and names no format).
    init(_ request: ArcGISRequest) {
        url = request.url
        method = request.method
        parameters = request.parameters
        responseStream = request.responseStream
        bodyStream = request.bodyStream
        if request.expectsJSON, !parameters.contains(where: { $0.0 == "f" }) { parameters.append(("f", "json")) }
    }
}
