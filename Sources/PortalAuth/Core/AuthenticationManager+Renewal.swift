import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthenticationManager {
    // MARK: - Credentials for use

    /// The credential to attach to a request for `url`: the one of its server context, renewed
    /// when it is close to expiry. `nil` when there is none or it expired and cannot be renewed.
    func credentialForUse(_ url: URL) async throws -> (any ArcGISCredential)? {
        guard let credential = try await arcGISCredentialStore.credential(for: url) else { return nil }
        if credential.tokenInfo.isSSLRequired, url.scheme?.lowercased() != "https" {
            throw PortalAuthError(
                .insecureTransport,
                "refusing to send the token of \(credential.serverContext) over plain http to \(ServerContext.describe(url)): the token requires https; use the https URL"
            )
        }
        guard credential.tokenInfo.expires(within: credential.renewalLeeway) else { return credential }
        return try await renew(credential)
    }

    /// Renews a credential close to expiry, once across tasks and processes. Returns the renewed
    /// credential, the old one while it has not yet expired, or `nil` once it has.
    func renew(_ credential: any ArcGISCredential) async throws -> (any ArcGISCredential)? {
        let context = credential.serverContext
        return try await renewalFlights.run(context.url) { [self] in
            let work: () async throws -> (any ArcGISCredential)? = { [self] in
                // Another task or process may have renewed it while we waited for the lock: a
                // different, unexpired token is that renewal (even when its lifetime is shorter
                // than the leeway, renewing again would only repeat it).
                let stored = try await arcGISCredentialStore.credential(for: context, reload: usesCrossProcessLocks)
                if let stored,
                    !stored.tokenInfo.expires(within: stored.renewalLeeway)
                        || (stored.tokenInfo.accessToken != credential.tokenInfo.accessToken
                            && !stored.tokenInfo.expires(within: 30))
                {
                    return stored
                }
                // Signed out meanwhile (another process ran logout): do not bring it back.
                if usesCrossProcessLocks, stored == nil { return nil }
                logger.debug(
                    "renewing credential", metadata: ["server": "\(context)", "kind": "\(type(of: credential).kind)"])
                let renewed: (any ArcGISCredential)?
                do {
                    renewed = try await credential.renewed(using: services)
                } catch let error as PortalAuthError
                    where error.code != .authenticationFailed && !credential.tokenInfo.isExpired()
                {
                    // A passing failure at the token service: the current token is still good.
                    logger.warning(
                        "renewal failed; using the current token until it expires",
                        metadata: ["server": "\(context)", "error": "\(error.code)"])
                    return credential
                }
                if let renewed {
                    try await arcGISCredentialStore.add(any: renewed)
                    return renewed
                }
                if let portal = credential.derivedFrom,
                    let portalCredential = try await credentialForUse(URL(string: portal.url)!)
                {
                    return try await federate(server: context, portal: portalCredential, tokenServiceURL: nil)
                }
                return credential.tokenInfo.isExpired() ? nil : credential
            }
            if usesCrossProcessLocks { return try await CrossProcessLock.withLock("renew " + context.url, work) }
            return try await work()
        }
    }
}
