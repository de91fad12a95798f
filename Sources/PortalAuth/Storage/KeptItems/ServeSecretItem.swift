/// Where `serve` keeps the random part of its base URL (its capability): one item beside the
/// credentials (store ``storeName``, kind ``kind``, server ``server``), so that it stays the same
/// across restarts. The library keeps it, through its write path, under a lock of its own; what
/// a secret is (its length, its alphabet) is the caller's to say.
public enum ServeSecretItem {
    /// The `store` attribute of the item.
    public static let storeName = "serve"
    /// The `kind` attribute of the item.
    public static let kind = "serve-secret"
    /// The `server` attribute of the item (no server: the local one).
    public static let server = "http://127.0.0.1"

    private static var query: CredentialQuery { CredentialQuery(store: storeName, server: server, kind: kind) }

    /// The stored secret when `isUsable` accepts it, or `nil` (nothing is made).
    public static func stored(
        in backend: any CredentialStorageBackend, isUsable: (String) -> Bool
    ) throws -> String? {
        try backend.lookup(query).flatMap { isUsable($0) ? $0 : nil }
    }

    /// The stored secret when `isUsable` accepts it and `renew` is not set; otherwise the one `make`
    /// makes, stored in place of the old one. Read and made under a lock that other processes
    /// share, so that two servers starting at once keep one secret.
    public static func current(
        in backend: any CredentialStorageBackend, renew: Bool, isUsable: (String) -> Bool,
        make: () throws -> String
    ) throws -> String {
        func body() throws -> String {
            if !renew, let stored = try stored(in: backend, isUsable: isUsable) { return stored }
            let secret = try make()
            try backend.store(
                CredentialAttributes(store: storeName, server: server, kind: kind), secret: secret, replacing: query,
                access: CredentialWriteAccess())
            return secret
        }
        guard backend.isPersistent else { return try body() }
        return try CrossProcessLock.withBlockingLock("serve secret", body)
    }
}
