import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer to an ``ArcGISRequest`` that succeeded (no ArcGIS error in the body).
public struct ArcGISResponse: Sendable {
    /// The HTTP response.
    public var http: TransportResponse
    /// The parsed JSON body, when the request expected JSON.
    public var json: JSONValue?
}
