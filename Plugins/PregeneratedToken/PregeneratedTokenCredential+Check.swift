public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PregeneratedTokenCredential {
    /// Sends one request with the token before it is stored, and returns once its server context
    /// accepted it: a portal's `sharing/rest/portals/self`, or, where the context is no portal
    /// (it answers 404 there), an ArcGIS Server's `rest/services`. Both check a token they are
    /// given (498 for an unknown or expired one). The token goes in the body of a POST (never in
    /// the URL), with the ``referer`` it is bound to, and only inside its own server context.
    ///
    /// Throws ``PortalAuth/PortalAuthError/Code/credentialExpired`` when the token is refused, and
    /// the request's error when neither answer proves it was accepted: nothing is to be stored then.
    public func checkAccepted(using services: AuthenticationServices) async throws {
        let headers = referer.map { [(name: "Referer", value: $0)] } ?? []
        var failure: PortalAuthError?
        for path in ["/sharing/rest/portals/self", "/rest/services"] {
            let url = URL(string: serverContext.url + path)!
            do {
                _ = try await services.postForm(
                    url, [("token", tokenInfo.accessToken)], requireHTTPS: tokenInfo.isSSLRequired, headers: headers)
                return
            } catch let error as PortalAuthError {
                switch error.cause {
                case .arcGIS(let code, _, let message, _) where [498, 499, 401, 403].contains(code):
                    throw refusal("\(code) \(message)", at: url, cause: error.cause)
                case .httpStatus(let status) where [401, 403].contains(status):
                    throw refusal("HTTP \(status)", at: url, cause: error.cause)
                case .arcGIS(404, _, _, _), .httpStatus(404):
                    failure = error  // not this kind of server context: try the next
                default:
                    throw error
                }
            }
        }
        throw failure!
    }

    private func refusal(_ answer: String, at url: URL, cause: PortalAuthError.Cause?) -> PortalAuthError {
        PortalAuthError(
            .credentialExpired,
            "\(ServerContext.describe(url)) refused the token (\(answer)): it is mistyped, expired or revoked; "
                + "nothing was stored",
            remedy: .provide(.token), cause: cause)
    }
}
