import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON form of a stored credential: its kind and the credential itself.
struct CredentialEnvelope<C: Codable>: Codable {
    var version = 1
    var kind: String
    var credential: C
}
