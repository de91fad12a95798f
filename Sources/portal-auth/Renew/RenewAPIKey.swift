import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `renew --rotate-api-keys`: an API key this machine made (`api-key create`, so it knows its
/// item) is renewed by a rotation without downtime, as `api-key rotate` rotates it.
extension RenewOne {
    /// The stored key of this row.
    func storedAPIKey() async throws -> APIKeyCredential? {
        try await APIKeyLogin.keysByStoreKey(of: manager)[summary.server]
    }

    /// The stored key when `renew` may rotate it: asked to, and the key knows its item.
    func rotatableAPIKey() async throws -> APIKeyCredential? {
        guard apiKeyLifetime != nil, let key = try await storedAPIKey(), key.itemID != nil else { return nil }
        return key
    }

    /// Rotates the stored key; the new key lasts ``apiKeyLifetime``. A rotation that fails before
    /// its commit leaves the old key stored (an error); one whose old slot could not be revoked
    /// stored the new key, and says so on stderr.
    func rotateAPIKey() async throws {
        guard let lifetime = apiKeyLifetime, let key = try await rotatableAPIKey() else { return }
        let keys = try APIKeyAdministration(manager: manager, portalURL: URL(string: key.portal.url)!)
        var failure: (any Error)?
        let outcome = try await keys.rotate(key, expiration: Date().addingTimeInterval(lifetime)) { _, error in
            if let error { failure = error }
        }
        switch outcome {
        case .rotated: return
        case .rotatedOldKeyStillLive(let old, _):
            printWarning(
                "the API key for \(key.portal) was rotated, but slot \(old) still works: revoke it with "
                    + "portal-auth api-key revoke --portal \(key.portal.url) --slot \(old)")
        case .failed(let step):
            let why = failure.map { " (\(APIKeyRotate.message($0)))" } ?? ""
            throw PortalAuthError(
                .authenticationFailed,
                "the rotation failed at \(step)\(why); the stored key is unchanged and still works",
                remedy: .retryLater)
        }
    }
}
