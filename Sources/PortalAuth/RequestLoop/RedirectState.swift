#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Redirect bookkeeping for one request, as async-http-client's `RedirectState`: how many were
/// followed, and what the request becomes.
struct RedirectState {
    /// The redirect statuses followed.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// How many redirects one request follows.
    static let limit = 10

    /// Whether the request expects JSON (`f=json` is added again after a redirect that drops the parameters).
    let expectsJSON: Bool
    /// How many redirects were followed.
    private(set) var count = 0

    init(expectsJSON: Bool) { self.expectsJSON = expectsJSON }

    /// The request after `target` was answered with `status` and `location`.
    ///
    /// 301, 302 and 303 make it a GET of the new location without the parameters (the Location
    /// is the whole new request); 307 and 308 resend the parameters, but only within the same
    /// context (`keepsContext`) and scheme, never to another server and never from https to http.
    mutating func follow(
        _ target: RequestTarget, status: Int, location: String, keepsContext: (URL) -> Bool
    ) throws -> RequestTarget {
        count += 1
        guard count <= Self.limit, let location = URL(string: location, relativeTo: target.url)?.absoluteURL else {
            throw PortalAuthError(
                .httpError,
                "\(ServerContext.describe(target.url)) redirected too often or to an invalid location",
                remedy: .checkURL, cause: .httpStatus(status))
        }
        let next = try StrictURL.normalized(location)
        var followed = target
        followed.url = next
        if status != 307 && status != 308 {
            followed.method = .get
            followed.bodyStream = nil
            let query = next.query(percentEncoded: true) ?? ""
            let hasFormat = query.split(separator: "&").contains { $0.lowercased().hasPrefix("f=") }
            followed.parameters = expectsJSON && !hasFormat ? [("f", "json")] : []
        } else if next.scheme?.lowercased() != target.url.scheme?.lowercased() {
            // (A context is read without its scheme: https and http on one host are one context.)
            throw PortalAuthError(
                .httpError,
                "\(ServerContext.describe(target.url)) redirected a request with its parameters to "
                    + "\(ServerContext.describe(next)), another scheme: refusing to resend them there",
                remedy: .checkURL, cause: .httpStatus(status))
        } else if !keepsContext(next) {
            throw PortalAuthError(
                .httpError,
                "\(ServerContext.describe(target.url)) redirected a request with its parameters to "
                    + "\(ServerContext.describe(next)), another server: refusing to resend them there",
                remedy: .checkURL, cause: .httpStatus(status))
        }
        return followed
    }
}
