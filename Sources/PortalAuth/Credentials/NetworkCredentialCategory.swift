#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a network credential answers: the three kinds of network challenge.
enum NetworkCredentialCategory: String, Sendable, Hashable {
    case httpAuthentication = "http-auth"
    case clientCertificate = "client-certificate"
    case serverTrust = "server-trust"

    /// The categories transport options answer.
    static func of(_ options: TransportOptions) -> Set<NetworkCredentialCategory> {
        var categories = Set<NetworkCredentialCategory>()
        if options.httpAuthentication != nil { categories.insert(.httpAuthentication) }
        if options.clientCertificate != nil { categories.insert(.clientCertificate) }
        if options.pinnedPublicKey != nil { categories.insert(.serverTrust) }
        return categories
    }

    /// The categories a credential answers.
    static func of(_ credential: any NetworkCredential) -> Set<NetworkCredentialCategory> {
        var options = TransportOptions()
        credential.apply(to: &options)
        return of(options)
    }
}

extension TransportOptions {
    /// Only the part that answers challenges of `category`.
    func only(_ category: NetworkCredentialCategory) -> TransportOptions {
        switch category {
        case .httpAuthentication: return TransportOptions(httpAuthentication: httpAuthentication)
        case .clientCertificate: return TransportOptions(clientCertificate: clientCertificate)
        case .serverTrust: return TransportOptions(pinnedPublicKey: pinnedPublicKey)
        }
    }
}

extension NetworkAuthenticationChallenge.Kind {
    /// What a credential must answer for this challenge.
    var category: NetworkCredentialCategory {
        switch self {
        case .httpAuthentication: return .httpAuthentication
        case .clientCertificate: return .clientCertificate
        case .serverTrust: return .serverTrust
        }
    }
}
