import Synchronization

/// The store of a user who chose none, where a D-Bus session bus is: the keyring, unless nobody
/// on the bus provides a Secret Service (no process owns `org.freedesktop.secrets` and none could
/// be started for it: the bus answers `ServiceUnknown`, `NameHasNoOwner` or a `Spawn` error). Then
/// the headless store (``HeadlessStore``) is used from the first call that found so, for the rest
/// of the process, and `fallingBack` is told once (the CLI says so on stderr).
///
/// It asks the bus nothing of its own: the keyring's calls are made as they are, and only their
/// answer decides, so a call that the keyring answers costs what it did. Any other failure of the
/// keyring (locked, too slow, refused) is its error, never a reason to use another store; and a
/// store the user chose is never wrapped in this one.
package final class DefaultStoreBackend: CredentialStorageBackend, RememberingCredentialLookup {
    /// The keyring, tried first.
    package let keyring: KeyringCredentialBackend
    private let fallingBack: @Sendable (HeadlessStore) -> Void
    private let headless = Mutex<(store: HeadlessStore, backend: any CredentialStorageBackend)?>(nil)

    /// The keyring, falling back to the headless store; `fallingBack` is called once, when it does.
    package init(
        keyring: KeyringCredentialBackend = KeyringCredentialBackend(),
        fallingBack: @escaping @Sendable (HeadlessStore) -> Void
    ) {
        self.keyring = keyring
        self.fallingBack = fallingBack
    }

    /// The headless store once it is used; nil while the keyring is.
    package var headlessStore: HeadlessStore? { headless.withLock { $0?.store } }
    /// The keyring while it is used; nil once the headless store is.
    package var keyringInUse: KeyringCredentialBackend? { headlessStore == nil ? keyring : nil }
    private var current: any CredentialStorageBackend { headless.withLock { $0?.backend } ?? keyring }

    package var name: String { current.name }
    package var location: String { current.location }
    package let isBlocking = true
    package let isPersistent = true
    package var changeStamp: CredentialStoreChangeStamp? { current.changeStamp }

    /// Whether `error`, from the keyring, says that no Secret Service is on the bus or can be
    /// started there (GDBus's `SERVICE_UNKNOWN`, `NAME_HAS_NO_OWNER`, `SPAWN_*`).
    package static func saysNoSecretService(_ error: PortalAuthError) -> Bool {
        guard error.code == .keyringUnavailable, case .gError(let domain, let code, _)? = error.cause,
            domain == "g-dbus-error-quark"
        else { return false }
        return code == 2 || code == 3 || (23...34).contains(code)
    }

    /// `body` on the store in use; on the keyring, when it says there is no Secret Service, on the
    /// headless store instead (from now on).
    private func run<T>(_ body: (any CredentialStorageBackend) throws -> T) throws -> T {
        if let backend = headless.withLock({ $0?.backend }) { return try body(backend) }
        do {
            return try body(keyring)
        } catch let error as PortalAuthError where Self.saysNoSecretService(error) {
            return try body(fallBack())
        }
    }

    /// The headless store, chosen (and told) once.
    private func fallBack() -> any CredentialStorageBackend {
        let (chosen, isNew) = headless.withLock { state in
            if let state { return (state, false) }
            let store = HeadlessStore.choose(lacking: "no Secret Service on the D-Bus session bus")
            state = (store, store.makeBackend())
            return (state!, true)
        }
        if isNew { fallingBack(chosen.store) }
        return chosen.backend
    }

    package func checkAvailable() throws { try run { try $0.checkAvailable() } }

    package func lookup(_ query: CredentialQuery) throws -> String? { try run { try $0.lookup(query) } }

    package func lookup(_ query: CredentialQuery, verifying isItsItem: (String) -> Bool) throws -> String? {
        try run { backend in
            guard let remembering = backend as? any RememberingCredentialLookup else {
                return try backend.lookup(query)
            }
            return try remembering.lookup(query, verifying: isItsItem)
        }
    }

    package func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try run { try $0.search(query, withSecrets: withSecrets) }
    }

    package func contains(_ query: CredentialQuery) throws -> Bool { try run { try $0.contains(query) } }

    package func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try run { try $0.store(attributes, secret: secret, access: access) }
    }

    package func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try run { try $0.store(attributes, secret: secret, replacing: replacing, access: access) }
    }

    @discardableResult
    package func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try run { try $0.delete(query, access: access) }
    }
}
