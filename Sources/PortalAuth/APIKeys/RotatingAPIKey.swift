import Synchronization

/// An API key read from a secret file that rotates (``RotatingSecret``: a Kubernetes `..data`
/// swap, a rename by Vault Agent, an edit in place), which a manager presents as it is now
/// (``AuthenticationManager/apiKeySource``).
///
/// The key's scope (its portal, the services its `portals/self` listed, its hosts) is the first
/// key's: a rotated key is the same application's key for the same portal. Asking whether the key
/// changed costs one `stat` of the file (``refresh(now:)``); the file is read only when it changed.
public final class RotatingAPIKey: Sendable {
    /// The secret the key is read from.
    public let secret: RotatingSecret
    private let current: Mutex<APIKeyCredential>

    /// Presents `credential`, the key `secret` holds now with its scope (made with
    /// ``APIKeyCredential/credential(apiKey:portalURL:expirationDate:hosts:services:)``), and the
    /// key the file holds after each rotation.
    public init(_ credential: APIKeyCredential, secret: RotatingSecret) {
        self.secret = secret
        current = Mutex(credential)
    }

    /// The credential with the key as last read.
    public var credential: APIKeyCredential { current.withLock { $0 } }

    /// Reads the file again if it changed since the last reading (as ``RotatingSecret/refresh(now:)``
    /// does: an edit in place only once settled, unless `now` is `.max`), and says whether the key
    /// did. A rotated file that breaks a rule, or holds no usable key, throws, and the last key stays.
    @discardableResult
    public func refresh(now: Int64 = RotatingSecret.wallClock()) throws -> Bool {
        try secret.refresh(now: now)
        // (Compared with the key in hand, not the reading: another reader may have refreshed the secret.)
        let text = secret.secret
        return try current.withLock { credential in
            guard (try? APIKeyCredential.checkedKey(text)) != credential.tokenInfo.accessToken else { return false }
            credential = try credential.replacingKey(with: text)
            return true
        }
    }
}
