#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TransportResponse {
    /// The HTTP authentication schemes (Basic, Digest, NTLM, Negotiate) and realm a 401 offers
    /// in its `WWW-Authenticate` headers; `nil` for any other answer.
    public var httpAuthenticationOffer: (schemes: TransportOptions.HTTPAuthSchemes, realm: String?)? {
        guard status == 401, let offer = HTTPAuthenticationHeader.parse(headers(named: "WWW-Authenticate")) else {
            return nil
        }
        return (offer.schemes, offer.realm)
    }
}

/// The schemes and realm of `WWW-Authenticate` headers.
package struct HTTPAuthenticationHeader: CustomStringConvertible {
    /// The schemes offered that the transport can answer.
    package var schemes: TransportOptions.HTTPAuthSchemes
    /// The first realm given with one of them.
    package var realm: String?
    /// The schemes' names, in the order offered, for messages.
    package var names: [String]

    /// The offer of a response's `WWW-Authenticate` values; nil when none names a scheme the
    /// transport can answer.
    package static func parse(_ values: [String]) -> HTTPAuthenticationHeader? {
        var schemes: TransportOptions.HTTPAuthSchemes = []
        var realm: String?
        var names: [String] = []
        for value in values {
            let scheme = value.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            switch scheme {
            case "basic": schemes.insert(.basic); names.append("Basic")
            case "digest": schemes.insert(.digest); names.append("Digest")
            case "ntlm": schemes.insert(.ntlm); names.append("NTLM")
            case "negotiate": schemes.insert(.negotiate); names.append("Negotiate")
            default: continue
            }
            if realm == nil, let range = value.firstRange(of: "realm=\"") {
                let rest = value[range.upperBound...]
                // The realm is shown in messages and prompts: one with control characters (a
                // terminal escape sequence from a hostile server) is not kept.
                realm = rest.firstIndex(of: "\"").map { String(rest[..<$0]) }.flatMap {
                    $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? nil : $0
                }
            }
        }
        return schemes.isEmpty ? nil : HTTPAuthenticationHeader(schemes: schemes, realm: realm, names: names)
    }

    /// `Basic/NTLM (realm "…")`, for messages.
    package var description: String {
        names.joined(separator: "/") + (realm.map { " (realm \"\($0)\")" } ?? "")
    }
}
