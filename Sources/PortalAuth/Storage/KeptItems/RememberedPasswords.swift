#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The passwords kept for the unattended renewal of token sign-ins (the CLI's
/// `login --remember-password`), in the keyring or the file store beside the credentials, so that
/// an expired token is generated again in any later process, with no prompt.
///
/// An item is not a credential: its `store` attribute is ``storeName`` (older versions read only
/// `arcgis`, `network` and `proxy` items) and its `kind` ``kind``; `server` is the server context
/// and `username` the user. The password is only in the item's secret. Passwords are kept and
/// forgotten through the write path, under the server context's lock (the one its renewals take,
/// where a kept password is read to sign in again).
public struct RememberedPasswords: Sendable {
    /// The `store` attribute of remembered passwords.
    public static let storeName = "arcgis-password"
    /// The `kind` attribute of remembered passwords.
    public static let kind = "remembered-password"

    /// Where the passwords are kept.
    public let backend: any CredentialStorageBackend

    /// The passwords kept in `backend`.
    public init(backend: any CredentialStorageBackend) {
        self.backend = backend
    }

    /// The item's secret: the password (and a version, for later readers).
    struct Secret: Codable {
        var version = 1
        var password: String
    }

    /// Keeps `password` for `username` at `context`, replacing the password kept for that user
    /// there before (another user's stays).
    public func save(_ password: String, for context: ServerContext, username: String) async throws {
        let secret = String(decoding: try JSONEncoder().encode(Secret(password: password)), as: UTF8.self)
        let attributes = CredentialAttributes(
            store: Self.storeName, server: context.url, kind: Self.kind, username: username)
        let replacing = CredentialQuery(store: Self.storeName, server: context.url, kind: Self.kind, username: username)
        let backend = self.backend
        try await locked(context.url) {
            try await BlockingIO.run(backend.isBlocking) {
                try backend.store(attributes, secret: secret, replacing: replacing, access: CredentialWriteAccess())
            }
        }
    }

    /// The password kept for `username` at `context` (never another user's), or `nil`.
    public func password(for context: ServerContext, username: String) throws -> String? {
        let items = try backend.search(
            CredentialQuery(store: Self.storeName, server: context.url, kind: Self.kind, username: username),
            withSecrets: true)
        for item in items where item.attributes.username == username {
            guard let text = item.secret, let secret = try? JSONDecoder().decode(Secret.self, from: Data(text.utf8))
            else { continue }
            return secret.password
        }
        return nil
    }

    /// Forgets the password kept for `username` at `context` (every user's when `nil`; every
    /// kept password when `context` is `nil`), each server context's under its lock; returns how
    /// many were forgotten.
    @discardableResult
    public func forget(for context: ServerContext?, username: String? = nil) async throws -> Int {
        let backend = self.backend
        let servers =
            try context.map { [$0.url] }
            ?? Set(kept().map(\.server)).sorted()
        var removed = 0
        for server in servers {
            let query = CredentialQuery(store: Self.storeName, server: server, kind: Self.kind, username: username)
            removed += try await locked(server) {
                try await BlockingIO.run(backend.isBlocking) {
                    try backend.delete(query, access: CredentialWriteAccess())
                }
            }
        }
        return removed
    }

    /// Whether a password is kept for `username` at `context`, found without reading a secret: the
    /// backend's ``CredentialStorageBackend/contains(_:)`` (in the keyring, answered from its item
    /// index while portal-auth has not changed the keyring since, the rule every recorded `token`
    /// answer follows, so that a recorded answer and a new one agree).
    public func isKept(for context: ServerContext, username: String) throws -> Bool {
        try backend.contains(
            CredentialQuery(store: Self.storeName, server: context.url, kind: Self.kind, username: username))
    }

    /// The server contexts and users whose passwords are kept (never a secret).
    public func kept() throws -> [(server: String, username: String?)] {
        try backend.search(CredentialQuery(store: Self.storeName, kind: Self.kind), withSecrets: false).map {
            ($0.attributes.server, $0.attributes.username)
        }
    }

    /// `body` under the lock of the server context `server` (none in a store only this process sees).
    private func locked<T: Sendable>(_ server: String, _ body: () async throws -> T) async throws -> T {
        guard backend.isPersistent else { return try await body() }
        let key = CredentialScope.renewalLockKey(storeKey: server, storeName: ArcGISCredentialStore.storeName)
        return try await CrossProcessLock.withLock(key, body)
    }
}
