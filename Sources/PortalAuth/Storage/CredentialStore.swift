import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Keeps credentials of one family (``ArcGISCredentialStore``, ``NetworkCredentialStore``,
/// ``IAPCredentialStore``) in a storage backend, by ``CredentialScope``, with an in-memory
/// cache so that a burst of requests reads the backend once.
///
/// `Credential` is the family's protocol as an existential (`any ArcGISCredential`, …); every
/// family is kept, cached and read back the same way, as JSON in an envelope with its `kind`.
public final class CredentialStore<Credential: Sendable>: Sendable {
    let engine: CredentialStoreEngine
    let family: CredentialFamily
    /// What the store keeps in memory.
    private struct Cache {
        /// Per store key, the credentials read (an empty list: none stored).
        var entries: [String: [any StoredCredential]] = [:]
        /// Every credential, when read all at once.
        var all: [any StoredCredential]?
        /// Bumped by every change, so that a read that started before a change does not put its
        /// stale result in the cache.
        var generation = 0
        /// The last answers of ``credential(for:username:reload:)`` (without a user), by the URL's
        /// text: one request asks for its URL's credential several times (the scope decision,
        /// the request loop, a local server's check before it forwards). Made from what is kept
        /// above, and dropped with any change of it.
        var answers: [(text: String, answer: (any StoredCredential)?)] = []
        /// Bumped by every change of what is kept, so that an answer made before one is not kept.
        var epoch = 0

        /// Notes a change of ``entries`` or ``all``: the answers made from them are dropped.
        mutating func changed() {
            answers.removeAll()
            epoch &+= 1
        }
    }

    private let cache = Locked(Cache())

    /// How many times the store was asked for credentials (``credential(for:username:reload:)``,
    /// ``credentials(in:username:reload:)`` and what calls them), cached or not: the tests that hold
    /// a decision to one read of the store count them.
    package var reads: Int { readCount.load(ordering: .relaxed) }
    private let readCount = Atomic<Int>(0)

    /// How many answers ``Cache/answers`` holds.
    private static var keptAnswers: Int { 8 }

    /// The backend the credentials are kept in.
    public var backend: any CredentialStorageBackend { engine.backend }

    package init(backend: any CredentialStorageBackend, family: CredentialFamily) {
        engine = CredentialStoreEngine(backend: backend, storeName: family.storeName)
        self.family = family
    }

    /// Lets the store read back credentials of this type (by their `kind`).
    public func register<C: StoredCredential>(_ type: C.Type) { engine.register(type) }

    /// The stored credentials of `scope` (one of each kind; one in all for ArcGIS credentials),
    /// only `username`'s when given.
    ///
    /// - Parameter reload: read the backend even when the scope is cached (another process may
    ///   have changed it).
    public func credentials(
        in scope: CredentialScope, username: String? = nil, reload: Bool = false
    ) async throws -> [Credential] {
        readCount.add(1, ordering: .relaxed)
        let found = try await stored(in: scope, reload: reload)
        return found.filter { username == nil || $0.username == username }.compactMap { $0 as? Credential }
    }

    /// The credential for `url`: of the most specific scope that applies to it, only `username`'s
    /// when given; `nil` when none does.
    public func credential(for url: URL, username: String? = nil, reload: Bool = false) async throws -> Credential? {
        readCount.add(1, ordering: .relaxed)
        guard username == nil, !reload else {
            return try await find(url, username: username, reload: reload) as? Credential
        }
        let text = url.absoluteString
        let (kept, epoch) = cache.withLock { cache in
            (cache.answers.last { ASCIIText.sameBytes($0.text, text) }, cache.epoch)
        }
        if let kept { return kept.answer as? Credential }
        let found = try await find(url, username: nil, reload: false)
        // (Only an answer read from what the cache keeps: a family that reads every credential
        // from the backend each time is asked again.)
        guard try family.cachesEveryCredential || family.candidateScopes(url) != nil else {
            return found as? Credential
        }
        cache.withLock { cache in
            guard cache.epoch == epoch else { return }
            if cache.answers.count >= Self.keptAnswers { cache.answers.removeFirst() }
            cache.answers.append((text, found))
        }
        return found as? Credential
    }

    /// ``credential(for:username:reload:)`` found in the cache and the backend.
    private func find(_ url: URL, username: String?, reload: Bool) async throws -> (any StoredCredential)? {
        guard let scopes = try family.candidateScopes(url) else {
            return try await all(reload: reload).first { $0.applies(to: url) && Self.isUser(username, $0) }
        }
        for scope in scopes {
            if let found = try await stored(in: scope, reload: reload).first(where: {
                $0.applies(to: url) && Self.isUser(username, $0)
            }) {
                return found
            }
        }
        return nil
    }

    /// The library's one synchronous lookup: the credential for `url`, as
    /// ``credential(for:username:reload:)`` finds it, but read from the backend on the calling
    /// thread, blocking it (the keyring makes D-Bus round trips), and without the cache. For a
    /// short-lived process that needs one stored credential before it starts anything else;
    /// everything else uses the asynchronous lookups.
    public func storedCredential(for url: URL) throws -> Credential? {
        guard let scopes = try family.candidateScopes(url) else {
            return try engine.searchOnCallingThread(CredentialQuery()).lazy.map(\.1).first { $0.applies(to: url) }
                as? Credential
        }
        for scope in scopes {
            if let found = try readOnCallingThread(scope).first(where: { $0.applies(to: url) }) {
                return found as? Credential
            }
        }
        return nil
    }

    /// Every stored credential of the family.
    ///
    /// - Parameter reload: read the backend even when the list is cached.
    public func allCredentials(reload: Bool = false) async throws -> [Credential] {
        try await all(reload: reload).compactMap { $0 as? Credential }
    }

    /// Adds a credential, replacing the one of its scope and kind (for ArcGIS credentials, the one
    /// of its scope, whatever its kind). The storage layer's own write, which takes no lock but
    /// requires the one its caller holds (``requireLock(of:)``): the lock of the credential's scope,
    /// or for a federated server token of the portal it was issued for. Everything else stores
    /// through ``commit(_:origin:)``.
    func add(_ credential: Credential) async throws {
        guard let stored = credential as? any StoredCredential else {
            throw PortalAuthError(.internalError, "\(type(of: credential)) is not a stored credential", remedy: .none)
        }
        try requireLock(
            of: (credential as? any ArcGISCredential)?.derivedFrom.map { .serverContext($0) } ?? stored.scope)
        try await engine.store(stored, server: stored.scope.storeKey, replacingScope: family.onePerScope)
        let key = stored.scope.storeKey
        cache.withLock { cache in
            cache.entries[key] = family.onePerScope ? [stored] : nil
            cache.all = nil
            cache.generation += 1
            cache.changed()
        }
    }

    /// Removes the credentials of `scope` (of one kind, or all); returns how many were removed.
    /// The storage layer's own delete, which takes no lock but requires the one its caller holds:
    /// `lock`'s (the scope's own by default; a portal's for the federated server tokens derived
    /// from it). Everything else removes through ``forget(_:kind:)``.
    @discardableResult
    func remove(_ scope: CredentialScope, kind: String? = nil, under lock: CredentialScope? = nil) async throws -> Int {
        try requireLock(of: lock ?? scope)
        let removed = try await engine.delete(CredentialQuery(server: scope.storeKey, kind: kind))
        invalidateCache()
        return removed
    }

    /// Throws unless this task holds the cross-process lock of `scope` (``withScopeLock(_:_:)``),
    /// in a store that other processes share: the storage layer's own writes run only inside the
    /// write path, under the lock that renewals, commits and account switches take.
    func requireLock(of scope: CredentialScope) throws {
        guard backend.isPersistent, !CrossProcessLock.heldKeys.contains(scope.renewalLockKey) else { return }
        throw PortalAuthError(
            .internalError, "a write to the \(backend.name) store outside the lock of \(scope.storeKey)", remedy: .none)
    }

    /// Removes every credential of the family, one scope at a time under its lock (``forget(_:kind:)``
    /// of each); returns how many were removed.
    @discardableResult
    func removeAll() async throws -> Int {
        try await forgetEveryItem(of: engine.storeName)
    }

    /// Non-secret summaries of every stored item, each with its credential's own answer to how it
    /// is renewed (unreadable items are listed without expiry or answer).
    public func summaries() async throws -> [CredentialSummary] {
        try await engine.summaries()
    }

    /// Forgets cached credentials so the next read goes to the backend.
    public func invalidateCache() {
        cache.withLock { cache in
            cache.entries.removeAll()
            cache.all = nil
            cache.generation += 1
            cache.changed()
        }
    }

    private static func isUser(_ username: String?, _ credential: any StoredCredential) -> Bool {
        username == nil || credential.username == username
    }

    /// The credentials of `scope`, from the cache unless `reload`.
    private func stored(in scope: CredentialScope, reload: Bool) async throws -> [any StoredCredential] {
        let key = scope.storeKey
        let (cached, generation) = cache.withLock { ($0.entries[key], $0.generation) }
        if let cached, !reload { return cached }
        let found: [any StoredCredential]
        if family.onePerScope {
            let lookup = try await engine.lookup(server: key) { $0.scope == scope }
            found = lookup.map { [$0] } ?? []
        } else {
            found = try await engine.search(CredentialQuery(server: key)).map(\.1)
        }
        cache.withLock { cache in
            guard cache.generation == generation else { return }
            cache.entries[key] = found
            cache.changed()
        }
        return found
    }

    /// Every credential of the family, from the cache unless `reload`.
    private func all(reload: Bool) async throws -> [any StoredCredential] {
        let (cached, generation) = cache.withLock { ($0.all, $0.generation) }
        if let cached, !reload, family.cachesEveryCredential { return cached }
        let found = try await engine.search(CredentialQuery()).map(\.1)
        cache.withLock { cache in
            guard cache.generation == generation else { return }
            cache.all = found
            cache.changed()
        }
        return found
    }

    /// ``stored(in:reload:)`` read on the calling thread, without the cache.
    private func readOnCallingThread(_ scope: CredentialScope) throws -> [any StoredCredential] {
        if family.onePerScope {
            return try engine.lookupOnCallingThread(server: scope.storeKey) { $0.scope == scope }.map { [$0] } ?? []
        }
        return try engine.searchOnCallingThread(CredentialQuery(server: scope.storeKey)).map(\.1)
    }
}

/// Keeps ArcGIS credentials, one per server context.
public typealias ArcGISCredentialStore = CredentialStore<any ArcGISCredential>
/// Keeps network credentials (HTTP passwords, client certificates, trusted servers), one of each kind per host.
public typealias NetworkCredentialStore = CredentialStore<any NetworkCredential>
/// Keeps IAP credentials (identity-aware proxies), one per sign-in.
public typealias IAPCredentialStore = CredentialStore<any IAPAuthorizationCredential>

extension CredentialStore where Credential == any ArcGISCredential {
    /// The `store` attribute of ArcGIS items.
    public static var storeName: String { "arcgis" }

    /// Creates a store over a backend and registers the core's own credential types.
    public convenience init(backend: any CredentialStorageBackend) {
        let family = CredentialFamily(
            storeName: Self.storeName,
            candidateScopes: { try ServerContext.candidates(for: $0).map(CredentialScope.serverContext) },
            onePerScope: true)
        self.init(backend: backend, family: family)
        register(FederatedTokenCredential.self)
        register(APIKeyCredential.self)
    }

    /// The credential of exactly this server context, if one is stored.
    ///
    /// - Parameter reload: read the backend even when the credential is cached (another process may have renewed it).
    public func credential(for context: ServerContext, reload: Bool = false) async throws -> (any ArcGISCredential)? {
        try await credentials(in: .serverContext(context), reload: reload).first
    }

    /// Removes the credential of a server context and every credential derived from it
    /// (federated server tokens), without a lock (``forget(_:kind:)`` takes it); returns how many
    /// were removed.
    @discardableResult
    func remove(_ context: ServerContext) async throws -> Int {
        try requireLock(of: .serverContext(context))
        var removed = try await remove(.serverContext(context))
        for (attributes, credential) in try await engine.search(CredentialQuery()) {
            if let arcGIS = credential as? any ArcGISCredential, arcGIS.derivedFrom == context {
                removed += try await engine.delete(CredentialQuery(server: attributes.server, kind: attributes.kind))
            }
        }
        invalidateCache()
        return removed
    }
}

extension CredentialStore where Credential == any NetworkCredential {
    /// The `store` attribute of network items.
    public static var storeName: String { "network" }

    /// Creates a store over a backend.
    public convenience init(backend: any CredentialStorageBackend) {
        let family = CredentialFamily(
            storeName: Self.storeName, candidateScopes: { [.host(try ServerContext.host(of: $0))] }, onePerScope: false)
        self.init(backend: backend, family: family)
    }

    /// Every credential for a host (`scheme://host:port`).
    /// `reload` reads the backend even when the host is cached (another process may have changed it).
    public func credentials(for host: ServerContext, reload: Bool = false) async throws -> [any NetworkCredential] {
        try await credentials(in: .host(host), reload: reload)
    }

    /// Removes the credentials of a host (of one kind, or all) under the host's lock; returns how
    /// many were removed.
    @discardableResult
    func remove(_ host: ServerContext, kind: String? = nil) async throws -> Int {
        try await forget(.host(host), kind: kind)
    }
}

extension CredentialStore where Credential == any IAPAuthorizationCredential {
    /// The `store` attribute of IAP items (`proxy`, the name earlier versions stored: kept so their items still read).
    public static var storeName: String { "proxy" }

    /// Creates a store over a backend.
    public convenience init(backend: any CredentialStorageBackend) {
        self.init(
            backend: backend,
            family: CredentialFamily(
                storeName: Self.storeName, candidateScopes: { _ in nil }, onePerScope: false,
                cachesEveryCredential: true))
    }

    /// Removes the credential with this identifier under its lock; returns how many were removed.
    @discardableResult
    func remove(_ iapIdentifier: String) async throws -> Int {
        try await forget(.hosts(identifier: iapIdentifier))
    }

    /// Signs out of one identity-aware proxy: removes `credential`, then shows its
    /// ``IAPAuthorizationCredential/logoutURL`` (the identity provider's sign-out page) through
    /// `userAgent`. Removed first, so that a sign-out page that cannot be shown leaves nothing
    /// behind. The one implementation behind ``AuthenticationManager/invalidateIAPCredentials(for:userAgent:)``
    /// and the plugins' own sign-out.
    public func invalidate(
        _ credential: any IAPAuthorizationCredential, userAgent: (any AuthorizationUserAgent)?
    ) async throws {
        try await remove(credential.iapIdentifier)
        if let logout = credential.logoutURL, let userAgent {
            try await userAgent.present(logout, redirectURI: "")
        }
    }
}
