extension CredentialStore {
    /// The one way credentials leave the store, as ``commit(_:origin:)`` is the one way they
    /// enter it: removes the credentials of `scope` (of one `kind`, or every kind) under the
    /// scope's cross-process lock, the one commits, renewals and account switches take, so that
    /// none of them, in this process or another, writes back what is being removed. For an ArcGIS
    /// server context (every kind), the federated server tokens derived from it go too. Returns
    /// how many items were removed.
    ///
    /// The account operations (``ArcGISCredentialStore/removeAccount(_:username:)``,
    /// ``ArcGISCredentialStore/switchAccount(_:to:)``), ``IAPCredentialStore/invalidate(_:userAgent:)``
    /// and ``AuthenticationManager/clearCredentialStores()`` remove under the same locks.
    @discardableResult
    public func forget(_ scope: CredentialScope, kind: String? = nil) async throws -> Int {
        try await withScopeLock(scope) {
            if kind == nil, case .serverContext(let context) = scope, let arcGIS = self as? ArcGISCredentialStore {
                return try await arcGIS.remove(context)
            }
            return try await remove(scope, kind: kind)
        }
    }

    /// Runs `body` holding the cross-process lock of `scope` (none for a store that no other
    /// process shares, memory). A task that holds it already runs `body` at once.
    func withScopeLock<T: Sendable>(_ scope: CredentialScope, _ body: () async throws -> T) async throws -> T {
        guard backend.isPersistent else { return try await body() }
        return try await CrossProcessLock.withLock(scope.renewalLockKey, body)
    }

    /// Removes every item of the store `storeName` (this family's, or its inactive accounts'),
    /// one server at a time under the lock of its scope; returns how many were removed.
    func forgetEveryItem(of storeName: String) async throws -> Int {
        let backend = self.backend
        let servers = try await BlockingIO.run(backend.isBlocking) {
            Set(try backend.search(CredentialQuery(store: storeName), withSecrets: false).map(\.attributes.server))
        }
        defer { invalidateCache() }
        var removed = 0
        for server in servers.sorted() {
            let delete = { try await self.engine.delete(CredentialQuery(server: server), in: storeName) }
            guard backend.isPersistent else {
                removed += try await delete()
                continue
            }
            let key = CredentialScope.renewalLockKey(storeKey: server, storeName: family.storeName)
            removed += try await CrossProcessLock.withLock(key, delete)
        }
        return removed
    }
}
