// A password kept for unattended renewal (`login --remember-password`), in an item of its own.
import PortalAuth
import PortalAuthToken

/// The password of a token sign-in, kept in the keyring or the file store so that an expired
/// token is generated again in any later process, with no prompt: the library keeps it
/// (``RememberedPasswords``, through its write path); this is the CLI's wording around it.
enum RememberedPassword {
    /// Keeps `password` for `username` at `context`, replacing the password kept for that user
    /// there before (another account's stays).
    static func save(
        _ password: String, for context: ServerContext, username: String, in backend: any CredentialStorageBackend
    ) async throws {
        try await RememberedPasswords(backend: backend).save(password, for: context, username: username)
    }

    /// Removes the password kept for `username` at `context` (every user's when nil; every kept
    /// password when `context` is nil); how many were removed.
    @discardableResult
    static func remove(
        for context: ServerContext?, username: String? = nil, in backend: any CredentialStorageBackend
    ) async throws -> Int {
        try await RememberedPasswords(backend: backend).forget(for: context, username: username)
    }

    /// The server contexts and users whose passwords are kept (never a secret).
    static func kept(in backend: any CredentialStorageBackend) throws -> [(server: String, username: String?)] {
        try RememberedPasswords(backend: backend).kept()
    }

    /// `status`'s lines for the kept passwords: each such sign-in renews unattended.
    static func statusLines(in backend: any CredentialStorageBackend) throws -> [String] {
        try kept(in: backend).sorted { $0.server < $1.server }.map {
            "\($0.server) (\($0.username ?? "?")): renews unattended (password kept in the \(backend.name) store)"
        }
    }
}

extension RememberedPassword {
    /// Refuses `--remember-password` with a store that forgets it (memory), before the password is read.
    static func checkStore(_ backend: any CredentialStorageBackend) throws {
        guard backend.isPersistent else {
            throw PortalAuthError(
                .invalidArgument,
                "--remember-password keeps the password in the keyring or the file store, and the memory store forgets "
                    + "it when the command ends: choose --store keyring or file, or drop --remember-password"
            )
        }
    }

    /// The error for `--remember-password` at a server secured at the web tier.
    static let webTierError = PortalAuthError(
        .invalidArgument,
        "--remember-password is for token sign-ins: this server asks for HTTP authentication, whose password is stored "
            + "with its credential already; drop --remember-password"
    )

    /// After a token sign-in: keeps the password when `remember`, else forgets any password kept
    /// for `username` at `context` before (a new sign-in without the flag does not renew unattended). Returns
    /// the line that says the password is kept, if it is.
    static func update(
        remember: Bool, password: String, for context: ServerContext, username: String,
        in backend: any CredentialStorageBackend
    ) async throws -> String? {
        guard remember else {
            try await remove(for: context, username: username, in: backend)
            return nil
        }
        try await save(password, for: context, username: username, in: backend)
        return
            "The password is kept in the \(backend.name) store: the token renews unattended (portal-auth logout "
            + "forgets it)."
    }
}
