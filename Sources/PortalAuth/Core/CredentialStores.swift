import Dispatch

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Runs blocking storage calls on a dedicated thread, never on the Swift concurrency pool.
enum BlockingIO {
    private static let queue = DispatchQueue(label: "portal-auth.storage")

    static func run<T: Sendable>(_ blocking: Bool, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard blocking else { return try body() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs a long blocking wait (a socket, a child process) on a thread of its own, off Swift's
    /// cooperative pool and off the storage queue.
    static func detached(_ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async(execute: body)
    }
}

/// The JSON form of a stored credential: its kind and the credential itself.
struct CredentialEnvelope<C: Codable>: Codable {
    var version = 1
    var kind: String
    var credential: C
}

private struct KindProbe: Decodable { var kind: String }

/// A non-secret summary of a stored credential, what a status listing shows of it.
public struct CredentialSummary: Sendable, Equatable, Codable {
    /// `arcgis` or `network`.
    public var store: String
    /// The credential kind.
    public var kind: String
    /// The server context or host.
    public var server: String
    /// The user name, when known.
    public var username: String?
    /// When the token expires, when known.
    public var expirationDate: Date?
    /// The storage backend (`keyring`, `file`, `memory`).
    public var backend: String
}

/// The machinery both stores share: encoding, a type registry, an in-memory cache, and
/// running blocking backends off the concurrency pool.
package final class CredentialStoreEngine: Sendable {
    let backend: any CredentialStorageBackend
    let storeName: String
    private let decoders = Locked<[String: @Sendable (Data) throws -> any StorableCredential]>([:])

    /// An engine for the items of `storeName` in `backend`.
    package init(backend: any CredentialStorageBackend, storeName: String) {
        self.backend = backend
        self.storeName = storeName
    }

    /// Lets the engine read back credentials of this type (by their `kind`).
    package func register<C: StorableCredential>(_ type: C.Type) {
        decoders.withLock {
            $0[C.kind] = { data in try JSONDecoder.portalAuth.decode(CredentialEnvelope<C>.self, from: data).credential
            }
        }
    }

    /// The JSON form kept as an item's secret.
    package func encode<C: StorableCredential>(_ credential: C) throws -> String {
        let data = try JSONEncoder.portalAuth.encode(CredentialEnvelope(kind: C.kind, credential: credential))
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads an item's secret back (as the keyring or the file store hands it over), by its
    /// `kind`; errors name `server` and the store, never the secret.
    package func decode(_ secret: String, server: String) throws -> any StorableCredential {
        let data = Data(secret.utf8)
        let kind: String
        do { kind = try JSONDecoder().decode(KindProbe.self, from: data).kind } catch {
            throw PortalAuthError(
                .storeFailure,
                "the stored credential for \(server) in the \(backend.name) store is unreadable",
                remedy: .removeStoredCredential(server: server))
        }
        guard let decoder = decoders.withLock({ $0[kind] }) else {
            throw PortalAuthError(
                .storeFailure,
                "the stored credential for \(server) is of kind '\(kind)', which no registered plugin reads (register its plugin to use it)",
                remedy: .removeStoredCredential(server: server))
        }
        do { return try decoder(data) } catch let error as PortalAuthError { throw error } catch {
            throw PortalAuthError(
                .storeFailure,
                "the stored \(kind) credential for \(server) is unreadable",
                remedy: .removeStoredCredential(server: server))
        }
    }

    /// The credential stored for `server`; `belongs` says whether a credential is `server`'s own,
    /// so that one read where the backend last found it (``RememberingCredentialLookup``)
    /// is only kept when it is.
    func lookup(
        server: String, belongs: @escaping @Sendable (any StorableCredential) -> Bool
    ) async throws -> (any StorableCredential)? {
        try await BlockingIO.run(backend.isBlocking) {
            try self.lookupOnCallingThread(server: server, belongs: belongs)
        }
    }

    /// ``lookup(server:belongs:)`` on the calling thread (which it blocks on a blocking backend).
    func lookupOnCallingThread(
        server: String, belongs: (any StorableCredential) -> Bool
    ) throws -> (any StorableCredential)? {
        let query = CredentialQuery(store: storeName, server: server)
        guard let remembering = backend as? any RememberingCredentialLookup else {
            return try backend.lookup(query).map { try decode($0, server: server) }
        }
        var verified: (secret: String, credential: any StorableCredential)?
        let found = try remembering.lookup(query) { secret in
            guard let credential = try? decode(secret, server: server), belongs(credential) else { return false }
            verified = (secret, credential)
            return true
        }
        guard let found else { return nil }
        if let verified, verified.secret == found { return verified.credential }
        return try decode(found, server: server)
    }

    func search(_ query: CredentialQuery) async throws -> [(CredentialAttributes, any StorableCredential)] {
        try await BlockingIO.run(backend.isBlocking) { try self.searchOnCallingThread(query) }
    }

    /// ``search(_:)`` on the calling thread (which it blocks on a blocking backend).
    func searchOnCallingThread(_ query: CredentialQuery) throws -> [(CredentialAttributes, any StorableCredential)] {
        var query = query
        query.store = storeName
        return decodeReadable(try backend.search(query, withSecrets: true))
    }

    /// The items that decode (unreadable ones are left out, as a search never fails on them).
    private func decodeReadable(_ items: [StoredCredentialItem]) -> [(CredentialAttributes, any StorableCredential)] {
        items.compactMap { item in
            guard let secret = item.secret, let credential = try? decode(secret, server: item.attributes.server) else {
                return nil
            }
            return (item.attributes, credential)
        }
    }

    func list(_ query: CredentialQuery) async throws -> [StoredCredentialItem] {
        let backend = self.backend
        var query = query
        query.store = storeName
        return try await BlockingIO.run(backend.isBlocking, { [query] in try backend.search(query, withSecrets: true) })
    }

    func store<C: StorableCredential>(_ credential: C, server: String) async throws {
        let secret = try encode(credential)
        let attributes = CredentialAttributes(
            store: storeName, server: server, kind: C.kind, username: credential.username)
        let backend = self.backend
        // One ArcGIS credential per server context: a new kind replaces the old one, in one change.
        let replacing =
            storeName == ArcGISCredentialStore.storeName
            ? CredentialQuery(store: storeName, server: server) : CredentialQuery(replacing: attributes)
        try await BlockingIO.run(backend.isBlocking) {
            try backend.store(attributes, secret: secret, replacing: replacing)
        }
    }

    /// Non-secret summaries of every item of this store; `expiry` reads an expiration date from
    /// a credential that decodes (unreadable items are listed without one).
    func summaries(expiry: ((any StorableCredential) -> Date?)? = nil) async throws -> [CredentialSummary] {
        try await list(CredentialQuery()).map { item in
            let date = expiry.flatMap { expiry in
                item.secret.flatMap { try? decode($0, server: item.attributes.server) }.flatMap(expiry)
            }
            return CredentialSummary(
                store: storeName, kind: item.attributes.kind, server: item.attributes.server,
                username: item.attributes.username, expirationDate: date, backend: backend.name)
        }
    }

    func delete(_ query: CredentialQuery) async throws -> Int {
        let backend = self.backend
        var query = query
        query.store = storeName
        return try await BlockingIO.run(backend.isBlocking, { [query] in try backend.delete(query) })
    }
}

/// Keeps ArcGIS credentials, one per server context, in a storage backend (the keyring by default),
/// with an in-memory cache so that a burst of requests reads the backend once.
public final class ArcGISCredentialStore: Sendable {
    /// The `store` attribute of ArcGIS items.
    public static let storeName = "arcgis"
    let engine: CredentialStoreEngine
    private let cache = Locked<[String: CacheEntry]>([:])

    private enum CacheEntry { case present(any ArcGISCredential), absent }

    /// The backend the credentials are kept in.
    public var backend: any CredentialStorageBackend { engine.backend }

    /// Creates a store over a backend and registers the core's own credential types.
    public init(backend: any CredentialStorageBackend) {
        engine = CredentialStoreEngine(backend: backend, storeName: Self.storeName)
        engine.register(FederatedTokenCredential.self)
    }

    /// Lets the store read back credentials of this type.
    public func register<C: ArcGISCredential>(_ type: C.Type) { engine.register(type) }

    /// The credential of exactly this server context, if one is stored.
    ///
    /// - Parameter reload: read the backend even when the credential is cached (another process may have renewed it).
    public func credential(for context: ServerContext, reload: Bool = false) async throws -> (any ArcGISCredential)? {
        if !reload, let entry = cache.withLock({ $0[context.url] }) {
            if case .present(let credential) = entry { return credential }
            return nil
        }
        let found =
            try await engine.lookup(server: context.url, belongs: Self.belongs(to: context.url))
            as? any ArcGISCredential
        cache.withLock { $0[context.url] = found.map { .present($0) } ?? .absent }
        return found
    }

    /// The credential whose server context contains `url` (the most specific one), if any.
    public func credential(for url: URL) async throws -> (any ArcGISCredential)? {
        for context in try ServerContext.candidates(for: url) {
            if let credential = try await credential(for: context), credential.serverContext.contains(url) {
                return credential
            }
        }
        return nil
    }

    /// The library's one synchronous lookup: the credential whose server context contains `url`,
    /// as ``credential(for:)-(URL)`` finds it, but read from the backend on the calling thread,
    /// blocking it (the keyring makes D-Bus round trips), and without the cache. For a short-lived
    /// process that needs one stored credential before it starts anything else; everything else
    /// uses the asynchronous lookups.
    public func storedCredential(for url: URL) throws -> (any ArcGISCredential)? {
        for context in try ServerContext.candidates(for: url) {
            if let credential = try engine.lookupOnCallingThread(
                server: context.url, belongs: Self.belongs(to: context.url)) as? any ArcGISCredential,
                credential.serverContext.contains(url)
            {
                return credential
            }
        }
        return nil
    }

    /// Whether a stored credential is the one of the server context `url`.
    private static func belongs(to url: String) -> @Sendable (any StorableCredential) -> Bool {
        { ($0 as? any ArcGISCredential)?.serverContext.url == url }
    }

    /// Adds a credential, replacing any credential of its server context.
    public func add(_ credential: some ArcGISCredential) async throws {
        try await engine.store(credential, server: credential.serverContext.url)
        cache.withLock { $0[credential.serverContext.url] = .present(credential) }
    }

    /// Removes the credential of a server context and every credential derived from it
    /// (federated server tokens); returns how many were removed.
    @discardableResult
    public func remove(_ context: ServerContext) async throws -> Int {
        var removed = try await engine.delete(CredentialQuery(server: context.url))
        for (attributes, credential) in try await engine.search(CredentialQuery()) {
            if let arcGIS = credential as? any ArcGISCredential, arcGIS.derivedFrom == context {
                removed += try await engine.delete(CredentialQuery(server: attributes.server, kind: attributes.kind))
            }
        }
        cache.withLock { $0.removeAll() }
        return removed
    }

    /// Removes every ArcGIS credential; returns how many were removed.
    @discardableResult
    public func removeAll() async throws -> Int {
        let removed = try await engine.delete(CredentialQuery())
        cache.withLock { $0.removeAll() }
        return removed
    }

    /// Every stored ArcGIS credential.
    public func allCredentials() async throws -> [any ArcGISCredential] {
        try await engine.search(CredentialQuery()).compactMap { $0.1 as? any ArcGISCredential }
    }

    /// Non-secret summaries of every stored item (unreadable items are listed without expiry).
    public func summaries() async throws -> [CredentialSummary] {
        try await engine.summaries { ($0 as? any ArcGISCredential)?.tokenInfo.expirationDate }
    }

    /// Forgets cached credentials so the next read goes to the backend.
    public func invalidateCache() { cache.withLock { $0.removeAll() } }
}

/// Keeps network credentials (HTTP passwords, client certificates, trusted servers) per host.
public final class NetworkCredentialStore: Sendable {
    /// The `store` attribute of network items.
    public static let storeName = "network"
    let engine: CredentialStoreEngine
    /// Per host, and a generation that every change bumps: a read that started before a change
    /// does not put its stale result in the cache.
    private let cache = Locked<(entries: [String: [any NetworkCredential]], generation: Int)>(([:], 0))

    /// The backend the credentials are kept in.
    public var backend: any CredentialStorageBackend { engine.backend }

    /// Creates a store over a backend.
    public init(backend: any CredentialStorageBackend) {
        engine = CredentialStoreEngine(backend: backend, storeName: Self.storeName)
    }

    /// Lets the store read back credentials of this type.
    public func register<C: NetworkCredential>(_ type: C.Type) { engine.register(type) }

    /// Every credential for a host (`scheme://host:port`).
    /// `reload` reads the backend even when the host is cached (another process may have changed it).
    public func credentials(for host: ServerContext, reload: Bool = false) async throws -> [any NetworkCredential] {
        let (cached, generation) = cache.withLock { ($0.entries[host.url], $0.generation) }
        if let cached, !reload { return cached }
        let found = try await engine.search(CredentialQuery(server: host.url)).compactMap {
            $0.1 as? any NetworkCredential
        }
        cache.withLock { if $0.generation == generation { $0.entries[host.url] = found } }
        return found
    }

    private func invalidate(_ host: String?) {
        cache.withLock { cache in
            if let host { cache.entries[host] = nil } else { cache.entries.removeAll() }
            cache.generation += 1
        }
    }

    /// Adds a credential, replacing one of the same kind for the same host.
    public func add(_ credential: some NetworkCredential) async throws {
        try await engine.store(credential, server: credential.host.url)
        invalidate(credential.host.url)
    }

    /// Removes the credentials of a host (of one kind, or all); returns how many were removed.
    @discardableResult
    public func remove(_ host: ServerContext, kind: String? = nil) async throws -> Int {
        let removed = try await engine.delete(CredentialQuery(server: host.url, kind: kind))
        invalidate(host.url)
        return removed
    }

    /// Removes every network credential.
    @discardableResult
    public func removeAll() async throws -> Int {
        let removed = try await engine.delete(CredentialQuery())
        invalidate(nil)
        return removed
    }

    /// Non-secret summaries of every stored item.
    public func summaries() async throws -> [CredentialSummary] {
        try await engine.summaries()
    }
}

extension JSONEncoder {
    /// Dates as epoch milliseconds, sorted keys.
    static var portalAuth: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension JSONDecoder {
    /// Dates as epoch milliseconds.
    static var portalAuth: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
