import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The machinery under ``CredentialStore``: encoding, a type registry, an in-memory cache, and
/// running blocking backends off the concurrency pool.
package final class CredentialStoreEngine: Sendable {
    let backend: any CredentialStorageBackend
    let storeName: String
    private let decoders = Locked<[String: @Sendable (Data) throws -> any StoredCredential]>([:])

    /// An engine for the items of `storeName` in `backend`.
    package init(backend: any CredentialStorageBackend, storeName: String) {
        self.backend = backend
        self.storeName = storeName
    }

    /// Lets the engine read back credentials of this type (by their `kind`).
    package func register<C: StoredCredential>(_ type: C.Type) {
        decoders.withLock {
            $0[C.kind] = { data in try JSONDecoder.portalAuth.decode(CredentialEnvelope<C>.self, from: data).credential
            }
        }
    }

    /// Lets the engine read back every type `other` reads.
    package func registerDecoders(of other: CredentialStoreEngine) {
        let theirs = other.decoders.withLock { $0 }
        decoders.withLock { $0.merge(theirs) { mine, _ in mine } }
    }

    /// The JSON form kept as an item's secret.
    package func encode<C: StorableCredential>(_ credential: C) throws -> String {
        let data = try JSONEncoder.portalAuth.encode(CredentialEnvelope(kind: C.kind, credential: credential))
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads an item's secret back (as the keyring or the file store hands it over), by its
    /// `kind`; errors name `server` and the store, never the secret.
    package func decode(_ secret: String, server: String) throws -> any StoredCredential {
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
                "the stored credential for \(server) is of kind '\(kind)', which no registered plugin reads",
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
        server: String, belongs: @escaping @Sendable (any StoredCredential) -> Bool
    ) async throws -> (any StoredCredential)? {
        try await BlockingIO.run(backend.isBlocking) {
            try self.lookupOnCallingThread(server: server, belongs: belongs)
        }
    }

    /// ``lookup(server:belongs:)`` on the calling thread (which it blocks on a blocking backend).
    func lookupOnCallingThread(
        server: String, belongs: (any StoredCredential) -> Bool
    ) throws -> (any StoredCredential)? {
        let query = CredentialQuery(store: storeName, server: server)
        guard let remembering = backend as? any RememberingCredentialLookup else {
            return try backend.lookup(query).map { try decode($0, server: server) }
        }
        var verified: (secret: String, credential: any StoredCredential)?
        let found = try remembering.lookup(query) { secret in
            guard let credential = try? decode(secret, server: server), belongs(credential) else { return false }
            verified = (secret, credential)
            return true
        }
        guard let found else { return nil }
        if let verified, verified.secret == found { return verified.credential }
        return try decode(found, server: server)
    }

    func search(_ query: CredentialQuery) async throws -> [(CredentialAttributes, any StoredCredential)] {
        try await BlockingIO.run(backend.isBlocking) { try self.searchOnCallingThread(query) }
    }

    /// ``search(_:)`` on the calling thread (which it blocks on a blocking backend).
    func searchOnCallingThread(_ query: CredentialQuery) throws -> [(CredentialAttributes, any StoredCredential)] {
        var query = query
        query.store = storeName
        return decodeReadable(try backend.search(query, withSecrets: true))
    }

    /// The items that decode (unreadable ones are left out, as a search never fails on them).
    private func decodeReadable(_ items: [StoredCredentialItem]) -> [(CredentialAttributes, any StoredCredential)] {
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

    /// Stores `credential` under `server`, replacing the item of its kind there, or with
    /// `replacingScope` every item there (one ArcGIS credential per server context: a new kind
    /// replaces the old one, in one change).
    func store<C: StorableCredential>(_ credential: C, server: String, replacingScope: Bool) async throws {
        let secret = try encode(credential)
        let attributes = CredentialAttributes(
            store: storeName, server: server, kind: C.kind, username: credential.username)
        let backend = self.backend
        let replacing =
            replacingScope ? CredentialQuery(store: storeName, server: server) : CredentialQuery(replacing: attributes)
        try await BlockingIO.run(backend.isBlocking) {
            try backend.store(attributes, secret: secret, replacing: replacing, access: CredentialWriteAccess())
        }
    }

    /// Non-secret summaries of every item of this store, with the expiry of the token a credential
    /// presents and its ``StoredCredential/renewal`` (unreadable items are listed without either).
    func summaries() async throws -> [CredentialSummary] {
        try await list(CredentialQuery()).map { item in
            let credential = item.secret.flatMap { try? decode($0, server: item.attributes.server) }
            return CredentialSummary(
                store: storeName, kind: item.attributes.kind, server: item.attributes.server,
                username: item.attributes.username, expirationDate: credential?.presentedToken?.expirationDate,
                backend: backend.name, renewal: credential?.renewal, remedyWhenLapsed: credential?.remedyWhenLapsed)
        }
    }

    /// Deletes the items of this store (or of `store`, its inactive accounts') matching `query`;
    /// how many there were.
    func delete(_ query: CredentialQuery, in store: String? = nil) async throws -> Int {
        let backend = self.backend
        var query = query
        query.store = store ?? storeName
        return try await BlockingIO.run(backend.isBlocking) { [query] in
            try backend.delete(query, access: CredentialWriteAccess())
        }
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
