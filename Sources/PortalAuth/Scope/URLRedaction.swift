#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Removes secrets from URLs before they reach a message or a log line: a plugin logs the URLs it
/// requests through it.
public enum URLRedaction {
    static let secretParameters: Set<String> = [
        "token", "password", "client_secret", "code", "code_verifier", "refresh_token", "access_token", "auth_token",
        "id_token",
    ]

    /// The URL with the values of secret query parameters replaced by `***`.
    public static func redact(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let base = url[..<q]
        let query = url[url.index(after: q)...]
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let pieces = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pieces.count == 2, secretParameters.contains(pieces[0].lowercased()) { return "\(pieces[0])=***" }
            return String(item)
        }
        return base + "?" + parts.joined(separator: "&")
    }
}
