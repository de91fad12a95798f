#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One attempt of a request: where it went, and with which credentials.
struct RequestAttempt {
    /// The URL it was sent to.
    var url: URL
    /// The URL's host.
    var host: ServerContext
    /// The ArcGIS credential it carried.
    var credential: (any ArcGISCredential)?
    /// The identity-aware proxy's credential it carried.
    var proxy: (any IAPAuthorizationCredential)?
    /// The network credentials it carried.
    var options: TransportOptions
}
