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
public final class DefaultStoreBackend: CredentialStorageBackend, RememberingCredentialLookup {
    /// The keyring, tried first.
    public let keyring: KeyringCredentialBackend
    private let fallingBack: @Sendable (HeadlessStore) -> Void
    private let headless = Mutex<(store: HeadlessStore, backend: any CredentialStorageBackend)?>(nil)

    /// The keyring, falling back to the headless store; `fallingBack` is called once, when it does.
    public init(
        keyring: KeyringCredentialBackend = KeyringCredentialBackend(),
        fallingBack: @escaping @Sendable (HeadlessStore) -> Void
    ) {
        self.keyring = keyring
        self.fallingBack = fallingBack
    }

    /// The headless store once it is used; nil while the keyring is.
    public var headlessStore: HeadlessStore? { headless.withLock { $0?.store } }
    /// The keyring while it is used; nil once the headless store is.
    public var keyringInUse: KeyringCredentialBackend? { headlessStore == nil ? keyring : nil }
    private var current: any CredentialStorageBackend { headless.withLock { $0?.backend } ?? keyring }

    /// The name of the store in use: the keyring's, or the headless store's once it fell back.
    public var name: String { current.name }
    /// Where the store in use keeps its items.
    public var location: String { current.location }
    /// True: the keyring's calls go over D-Bus, and the file store's wait on a lock.
    public let isBlocking = true
    /// True: both stores outlive the process (a headless memory store is chosen only when no file
    /// can be).
    public let isPersistent = true
    /// The change stamp of the store in use.
    public var changeStamp: CredentialStoreChangeStamp? { current.changeStamp }

    /// Whether `error`, from the keyring, says that no Secret Service is on the bus or can be
    /// started there (GDBus's `SERVICE_UNKNOWN`, `NAME_HAS_NO_OWNER`, `SPAWN_*`).
    public static func saysNoSecretService(_ error: PortalAuthError) -> Bool {
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

    /// Whether the store in use can be used now; the keyring's lack of a Secret Service falls back
    /// instead.
    public func checkAvailable() throws { try run { try $0.checkAvailable() } }

    /// The secret of the first item matching `query`, in the store in use.
    public func lookup(_ query: CredentialQuery) throws -> String? { try run { try $0.lookup(query) } }

    /// The secret of the first item matching `query` that `isItsItem` accepts, remembered where
    /// the store in use remembers answers.
    public func lookup(_ query: CredentialQuery, verifying isItsItem: (String) -> Bool) throws -> String? {
        try run { backend in
            guard let remembering = backend as? any RememberingCredentialLookup else {
                return try backend.lookup(query)
            }
            return try remembering.lookup(query, verifying: isItsItem)
        }
    }

    /// The items matching `query` in the store in use.
    public func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try run { try $0.search(query, withSecrets: withSecrets) }
    }

    /// Whether the store in use holds an item matching `query`.
    public func contains(_ query: CredentialQuery) throws -> Bool { try run { try $0.contains(query) } }

    /// Stores the item in the store in use.
    public func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try run { try $0.store(attributes, secret: secret, access: access) }
    }

    /// Stores the item in the store in use, replacing what `replacing` finds.
    public func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try run { try $0.store(attributes, secret: secret, replacing: replacing, access: access) }
    }

    /// Deletes the items matching `query` in the store in use; how many.
    @discardableResult
    public func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try run { try $0.delete(query, access: access) }
    }
}
