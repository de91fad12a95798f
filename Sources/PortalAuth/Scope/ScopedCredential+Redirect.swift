#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ScopedCredential {
    /// Whether a request that went to `url` with `credential` (nil: no ArcGIS credential, at most
    /// its host's network credential) may be sent again, its body and parameters included, to
    /// `next`, as a 307 or 308 redirect asks: only when the same credential reaches `next`
    /// (``ArcGISCredential/applies(to:)``), or, without one, when `next` is on the same host and
    /// port. Otherwise the request would reach `next` with another credential, or carry what was
    /// meant for `url` to another host.
    ///
    /// The request loop follows a 307 or 308 by this rule, and a program that passes redirects
    /// back to its clients (a local proxy) asks it before it does: one rule for both.
    public static func resendKeepsCredential(
        _ credential: (any ArcGISCredential)?, from url: URL, to next: URL
    ) -> Bool {
        if let credential { return credential.applies(to: next) }
        guard let host = try? ServerContext.host(of: url), let nextHost = try? ServerContext.host(of: next) else {
            return false
        }
        return host == nextHost
    }
}
