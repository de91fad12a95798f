import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the owning portal answered a request to exchange its token for a server token.
enum ServerTokenExchange {
    /// The portal issued a server token: that proves the server is federated with it.
    case issued(FederatedTokenCredential)
    /// The portal did not issue one: it answered ArcGIS error `code` (498: the token), or no token.
    /// Why it refused is never read from the wording of its answer.
    case refused(code: Int?)
}
