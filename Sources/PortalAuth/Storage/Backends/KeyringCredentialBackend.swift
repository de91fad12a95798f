internal import CLibSecret
internal import CPortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Keeps credentials in the desktop keyring: the Secret Service's default collection, through libsecret.
///
/// Each item carries the attributes `application=portal-auth`, `store`, `server`, `kind` and
/// `username`; its label is ``CredentialAttributes/label``; its secret is the serialized
/// credential. When the keyring cannot be used, every call throws an error that says which part
/// is missing and how to fix it; nothing ever falls back to another store. The calls block
/// (D-Bus round trips): the stores run them on a dedicated thread.
public final class KeyringCredentialBackend: CredentialStorageBackend, RememberingCredentialLookup {
    /// `keyring`.
    public let name = "keyring"
    /// The calls block.
    public let isBlocking = true
    /// The keyring outlives the process and other processes read it.
    public let isPersistent = true
    /// The `application` attribute of every item.
    public static let application = "portal-auth"

    /// Creates the backend (nothing is contacted until the first call).
    public init() {}

    /// The Secret Service's default collection on the session bus.
    public var location: String { "Secret Service default collection (D-Bus session bus)" }

    private static let lock = Locked(())

    // MARK: Availability

    /// Checks the session bus, the Secret Service and the default collection.
    public func checkAvailable() throws {
        try Self.lock.withLock {
            try Self.checkBus(); try Self.checkService()
        }
    }

    static func checkBus() throws {
        // getenv, not ProcessInfo's environment: that copies every variable into a dictionary,
        // a measurable part of a short token lookup's run.
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            var info = stat()
            if stat(runtime + "/bus", &info) == 0 { return }
        }
        throw PortalAuthError(
            .keyringUnavailable,
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)", remedy: .startSessionBus)
    }

    static func checkService() throws {
        var error = pa_secret_error()
        switch pa_secret_check(&error) {
        case 0: return
        case 2:
            throw PortalAuthError(
                .keyringLocked,
                "the keyring has no default collection (it is locked or was never created)", remedy: .unlockKeyring)
        case 3:
            throw PortalAuthError(
                .keyringLocked,
                "the keyring's default collection is locked", remedy: .unlockKeyring)
        default:
            if isTimeout(error) { throw slow("answer", error) }
            throw PortalAuthError(
                .keyringUnavailable,
                "no Secret Service on the D-Bus session bus (\(CString.text(error.message)))",
                remedy: .startSecretService,
                cause: cause(error))
        }
    }

    static func cause(_ error: pa_secret_error) -> PortalAuthError.Cause {
        .gError(domain: CString.text(error.domain_name), code: error.code, message: CString.text(error.message))
    }

    /// Whether a GError says the Secret Service did not answer in time (a D-Bus time-out or no
    /// reply: a busy or stalled service), rather than that it is missing or refused.
    static func isTimeout(domain: String, code: Int32) -> Bool {
        switch domain {
        case "g-io-error-quark": return code == 24  // G_IO_ERROR_TIMED_OUT
        case "g-dbus-error-quark": return [4, 12, 20].contains(code)  // NO_REPLY, TIMEOUT, TIMED_OUT
        default: return false
        }
    }

    private static func isTimeout(_ error: pa_secret_error) -> Bool {
        error.set != 0 && isTimeout(domain: CString.text(error.domain_name), code: error.code)
    }

    /// The error for a Secret Service that is there but too slow to answer.
    static func slow(_ what: String, domain: String, code: Int32, message: String) -> PortalAuthError {
        PortalAuthError(
            .timedOut,
            "the Secret Service did not \(what) in time (\(message)): it is running but busy or stalled",
            remedy: .retryLater,
            cause: .gError(domain: domain, code: code, message: message))
    }

    private static func slow(_ what: String, _ error: pa_secret_error) -> PortalAuthError {
        slow(what, domain: CString.text(error.domain_name), code: error.code, message: CString.text(error.message))
    }

    private static func failure(_ what: String, _ error: pa_secret_error) -> PortalAuthError {
        if isTimeout(error) { return slow(what, error) }
        return PortalAuthError(
            .storeFailure, "the keyring could not \(what) (\(CString.text(error.message)))",
            remedy: .checkCredentialStore,
            cause: cause(error))
    }

    // MARK: Attributes

    private static func withAttributes<T>(
        _ pairs: [(String, String?)], _ body: (OpaquePointer) throws -> T
    ) rethrows -> T {
        let all = [("application", Optional(application))] + pairs
        let keys = all.map { strdup($0.0) }
        let values = all.map { $0.1.map { strdup($0) } ?? nil }
        defer { keys.forEach { free($0) }; values.forEach { free($0) } }
        let keyPointers = keys.map { UnsafePointer($0) }
        let valuePointers = values.map { $0.map { UnsafePointer($0) } }
        let table = keyPointers.withUnsafeBufferPointer { k in
            valuePointers.withUnsafeBufferPointer { v in
                pa_secret_attributes_new(k.baseAddress, v.baseAddress, Int32(all.count))
            }
        }!
        defer { g_hash_table_unref(table) }
        return try body(table)
    }

    private static func pairs(_ query: CredentialQuery) -> [(String, String?)] {
        [("store", query.store), ("server", query.server), ("kind", query.kind)]
            + (query.username.map { [("username", $0)] } ?? [])
    }

    /// The cross-process lock of this keyring (one per D-Bus session bus): held shared while
    /// portal-auth reads items and exclusive while it changes them, so a reader never sees a
    /// replace half done and two writers never interleave.
    private static var lockKey: String {
        "keyring " + (getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) } ?? "")
    }

    /// The file, in the lock folder, of this keyring's ``KeyringItemIndex``.
    private static var indexName: String { CrossProcessLock.fileStem(for: lockKey) + ".index" }

    /// The identity of this keyring's ``KeyringItemIndex`` file, or nil when there is none.
    ///
    /// Every change portal-auth makes to the keyring removes the index first, under the exclusive
    /// lock (the stamp is then nil until a reader writes a new index, always a new file); a reader
    /// that adds an entry replaces the file (the stamp changes: one more read, never one too few).
    /// An item that another program (`secret-tool`) adds, changes or removes is seen when
    /// portal-auth next changes the keyring, or the lock folder is cleared: the rule by which the
    /// index's `has` entries are trusted (``contains(_:)``, which the token lookup asks).
    /// Nil too when the lock folder is not this user's alone.
    public var changeStamp: CredentialStoreChangeStamp? {
        let (directory, name) = Self.indexFile.withLock { known in
            if let known { return known }
            known = (CrossProcessLock.directory, Self.indexName)
            return known!
        }
        // (The folder itself, not a link to one, and the index then opened by its path: a second
        // lookup of the path, which only this user can make name another folder, as ``CrossProcessLock``
        // checks the folders above it; and a stamp of the wrong folder would only delay a re-read by
        // the reader's maximum age, never give it a secret. The answer book checks through the folder's descriptor.)
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0
        else { return nil }
        return CredentialStoreChangeStamp.file(at: directory + "/" + name)
    }

    /// The lock folder and the index's name in it, as ``changeStamp`` first found them (they
    /// depend on the environment alone; static, so that a backend made for one lookup pays nothing).
    private static let indexFile = Locked<(directory: String, name: String)?>(nil)

    /// Runs `body` holding the keyring's cross-process lock; a writer (not `shared`) first removes
    /// the item index, so that no reader trusts an entry made before the change.
    private func run<T>(shared: Bool, _ body: () throws -> T) throws -> T {
        try Self.lock.withLock {
            try Self.checkBus()
            try Self.checkService()
            return try CrossProcessLock.withBlockingLock(Self.lockKey, shared: shared) { folder in
                if !shared {
                    try KeyringItemIndex.remove(in: folder, name: Self.indexName)
                    // (Its answers stand on the index; with it gone they are stale: tidied away.)
                    unlinkat(folder.descriptor, Self.answersName, 0)
                }
                return try body()
            }
        }
    }

    // MARK: CredentialStorageBackend

    /// The secret of the first item matching the query.
    ///
    /// The fast path of a token lookup: a search and the secret read in a Secret Service
    /// session with the specification's `plain` algorithm (`pa_secret_lookup_plain`: no key
    /// exchange, which is most of what `secret-tool lookup` spends; secret.c says why this protects
    /// the same). A locked item (which needs libsecret's prompt) or an error goes through libsecret's
    /// lookup as before. Only when that finds nothing or fails is the Secret Service examined, so
    /// that a missing service or a locked collection is reported as such.
    public func lookup(_ query: CredentialQuery) throws -> String? {
        try lookup(query, through: .fast)
    }

    /// The ways ``lookup(_:)`` can read, for tests that hold them to the same answer.
    package enum Read: Sendable {
        /// The `plain` session, then libsecret when it declines: what ``lookup(_:)`` does.
        case fast
        /// The `plain` session alone: nil when it declines (a locked item, an error).
        case plainSessionOnly
        /// libsecret's lookup alone (its Diffie-Hellman session).
        case libsecretOnly
    }

    /// The secret of the first item matching the query, read first where an earlier lookup found
    /// it (the keyring's ``KeyringItemIndex``: one read, no search) and kept when `isItsItem` takes
    /// it; nil without a search when an earlier lookup found no item (a `none` entry, made since
    /// portal-auth last changed the keyring); otherwise as ``lookup(_:)`` reads, noting where the
    /// item was found, or that none was.
    package func lookup(_ query: CredentialQuery, verifying isItsItem: (String) -> Bool) throws -> String? {
        let remembered = try Self.lock.withLock {
            try Self.checkBus()
            return try CrossProcessLock.withBlockingLock(Self.lockKey, shared: true) { folder in
                try Self.remembered(query, in: KeyringItemIndex.read(in: folder, name: Self.indexName))
            }
        }
        switch remembered {
        case .noItem: return nil
        case .item(let path, let secret) where isItsItem(secret):
            Self.note(path: path, secret: secret)
            return secret
        case .item, .unknown: return try lookup(query, through: .fast, remembering: true)
        }
    }

    /// What the item index says of a lookup of `query`.
    private enum Remembered {
        /// The secret read where the item was found last.
        case item(path: String, secret: String)
        /// No item matched.
        case noItem
        /// Nothing known, or the item is no longer where it was.
        case unknown
    }

    /// What `index` says of `query`, with the secret read where the item was last found.
    private static func remembered(_ query: CredentialQuery, in index: KeyringItemIndex) throws -> Remembered {
        guard let path = index.itemPath(query) else {
            return index.hasNoItem(query, now: Int(time(nil))) ? .noItem : .unknown
        }
        var text: UnsafeMutablePointer<CChar>?
        var error = pa_secret_error()
        guard pa_secret_read_plain(path, &text, &error) == 1, let text else {
            // (A service too slow to answer this read is too slow for the search too.)
            if isTimeout(error) { throw slow("read a credential", error) }
            return .unknown
        }
        defer { pa_secret_free(text) }
        return .item(path: path, secret: String(cString: text))
    }

    /// ``lookup(_:)`` through one of the ways it can read; `remembering`: an item the `plain`
    /// session read is noted in the item index, and so is a search that found no item.
    package func lookup(_ query: CredentialQuery, through read: Read, remembering: Bool = false) throws -> String? {
        try Self.lock.withLock {
            try Self.checkBus()
            let (secret, error) = try CrossProcessLock.withBlockingLock(Self.lockKey, shared: true) { folder in
                Self.withAttributes(Self.pairs(query)) { table -> (String?, pa_secret_error) in
                    var error = pa_secret_error()
                    if read != .libsecretOnly {
                        var text: UnsafeMutablePointer<CChar>?
                        var path: UnsafeMutablePointer<CChar>?
                        let found = pa_secret_lookup_plain(table, &text, &path, &error)
                        defer { g_free(path) }
                        if found == 1, let text {
                            defer { pa_secret_free(text) }
                            let secret = String(cString: text)
                            if remembering, let path {
                                Self.remember(.item(path: String(cString: path)), for: query, in: folder)
                            }
                            Self.note(path: path.map { String(cString: $0) }, secret: secret)
                            return (secret, error)
                        }
                        if found == 0, remembering { Self.rememberNoItem(for: query, in: folder) }
                        if found == 0 || Self.isTimeout(error) || read == .plainSessionOnly { return (nil, error) }
                        error = pa_secret_error()
                    }
                    guard let secret = pa_secret_lookup(table, &error) else { return (nil, error) }
                    defer { pa_secret_free(secret) }
                    Self.note(path: nil, secret: String(cString: secret))
                    return (String(cString: secret), error)
                }
            }
            if let secret, error.set == 0 { return secret }
            if Self.isTimeout(error) { throw Self.slow("read a credential", error) }
            try Self.checkService()
            if error.set != 0 { throw Self.failure("read a credential", error) }
            return nil
        }
    }

    /// The secrets this process read and the items they were read from (nil: not by path), while
    /// a ``KeyringAnswerBook`` notes them (nil otherwise: nothing is kept).
    static let readNotes = Locked<[(path: String?, secret: String)]?>(nil)

    private static func note(path: String?, secret: String) {
        readNotes.withLock { $0?.append((path, secret)) }
    }

    /// The file, in the lock folder, of this keyring's ``KeyringAnswerBook``.
    private static var answersName: String { CrossProcessLock.fileStem(for: lockKey) + ".answers" }

    /// Adds `line` (the answer to `key`) to the answer book, under the keyring's lock, when the
    /// item index is still the file `stamp` describes; else, or on any failure, nothing.
    static func keepAnswer(_ line: String, key: String, stamp: CredentialStoreChangeStamp) {
        try? CrossProcessLock.withBlockingLock(lockKey, shared: true) { folder in
            guard CredentialStoreChangeStamp.file(at: indexName, relativeTo: folder.descriptor) == stamp else { return }
            let existing = readAnswers(in: folder)
            guard let text = KeyringAnswerBook.text(adding: line, key: key, stamp: stamp.numbers, to: existing) else {
                return
            }
            let temporary = "\(answersName).\(getpid())"
            let fd = openat(folder.descriptor, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return }
            var bytes = text
            let written = bytes.withUTF8 { buffer in
                var done = 0
                while done < buffer.count {
                    let moved = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                    if moved < 0, errno == EINTR { continue }
                    guard moved > 0 else { break }
                    done += moved
                }
                return done == buffer.count
            }
            let complete = written && fchmod(fd, 0o600) == 0
            close(fd)
            if !complete || renameat(folder.descriptor, temporary, folder.descriptor, answersName) != 0 {
                unlinkat(folder.descriptor, temporary, 0)
            }
        }
    }

    /// The answer book's text, when it is a regular file of at most its maximum size.
    private static func readAnswers(in folder: CrossProcessLock.Folder) -> String? {
        let fd = openat(folder.descriptor, answersName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= KeyringAnswerBook.maximumSize
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let moved = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if moved < 0, errno == EINTR { continue }
            guard moved > 0 else { break }
            done += moved
        }
        return String(decoding: bytes[..<done], as: UTF8.self)
    }

    /// Notes in the item index that a lookup of `query` found no item, only when the default
    /// collection is there and unlocked (a locked keyring may hide its items, and its lookups must
    /// keep saying so), and at most ``maximumNoItemNotes`` times a process: each note rewrites the
    /// index, which moves the keyring's change stamp, so a long-lived reader of many URLs (a local
    /// proxy) must not note a miss for each. The caller holds the keyring's lock shared.
    private static func rememberNoItem(for query: CredentialQuery, in folder: CrossProcessLock.Folder) {
        let allowed = noItemNotes.withLock { notes -> Bool in
            guard notes < maximumNoItemNotes else { return false }
            notes += 1
            return true
        }
        guard allowed else { return }
        var error = pa_secret_error()
        guard pa_secret_check(&error) == 0 else { return }
        remember(.noItem(until: Int(time(nil)) + KeyringItemIndex.noItemLifetime), for: query, in: folder)
    }

    /// How many misses a process notes in the item index: one long URL's candidate contexts.
    static let maximumNoItemNotes = 16
    /// How many this process noted.
    private static let noItemNotes = Locked(0)

    /// Lets this process note misses again (for tests, which share one process).
    package static func resetNoItemNotes() { noItemNotes.withLock { $0 = 0 } }

    /// Notes `entry` in the item index (the caller holds the keyring's lock shared).
    private static func remember(
        _ entry: KeyringItemIndex.Entry, for query: CredentialQuery, in folder: CrossProcessLock.Folder
    ) {
        var index = KeyringItemIndex.read(in: folder, name: indexName)
        index.set(entry, for: query)
        index.write(in: folder, name: indexName)
    }

    /// Whether any item matches the query: a Secret Service search, with no session opened and no
    /// secret read (so no key exchange, the costliest part of a read), in the default collection
    /// checked as ``search(_:withSecrets:)`` checks it (missing or locked: the same error, before
    /// anything could ask to unlock it). The answer is noted in the item index, and read there
    /// while portal-auth has not changed the keyring since (``KeyringItemIndex`` says what that
    /// misses).
    public func contains(_ query: CredentialQuery) throws -> Bool {
        let found = try Self.lock.withLock { () -> Bool? in
            try Self.checkBus()
            let (found, error) = try CrossProcessLock.withBlockingLock(Self.lockKey, shared: true) { folder in
                if let known = KeyringItemIndex.read(in: folder, name: Self.indexName).has(query) {
                    return (Int32(known ? 1 : 0), pa_secret_error())
                }
                let (found, error) = Self.withAttributes(Self.pairs(query)) { table -> (Int32, pa_secret_error) in
                    var error = pa_secret_error()
                    return (pa_secret_exists(table, &error), error)
                }
                if found >= 0 { Self.remember(.has(found == 1), for: query, in: folder) }
                return (found, error)
            }
            if found >= 0 { return found == 1 }
            if Self.isTimeout(error) { throw Self.slow("list credentials", error) }
            try Self.checkService()
            if found != -2 { throw Self.failure("list credentials", error) }
            return nil
        }
        // (Missing or locked a moment ago, usable now: as a search would find it.)
        return try found ?? !search(query, withSecrets: false).isEmpty
    }

    /// Every item matching the query.
    public func search(_ query: CredentialQuery, withSecrets: Bool) throws -> [StoredCredentialItem] {
        try run(shared: true) {
            try Self.withAttributes(Self.pairs(query)) { table in
                var error = pa_secret_error()
                var found = pa_secret_search(table, withSecrets ? 1 : 0, &error)
                // An item something other than portal-auth (which changes items only under the
                // exclusive lock) deleted between the Secret Service's search and libsecret's
                // loading of it has vanished: search again (a few times at most).
                var attempts = 1
                while found == nil, attempts < 5, CString.text(error.message).contains("No such secret item") {
                    attempts += 1
                    error = pa_secret_error()
                    found = pa_secret_search(table, withSecrets ? 1 : 0, &error)
                }
                guard let list = found else {
                    throw Self.failure("list credentials", error)
                }
                defer { pa_secret_item_list_free(list) }
                var items: [StoredCredentialItem] = []
                for i in 0..<pa_secret_item_count(list) {
                    func attribute(_ key: String) -> String? {
                        pa_secret_item_attribute(list, i, key).map { String(cString: $0) }
                    }
                    guard let store = attribute("store"), let server = attribute("server"), let kind = attribute("kind")
                    else { continue }
                    items.append(
                        StoredCredentialItem(
                            attributes: CredentialAttributes(
                                store: store, server: server, kind: kind, username: attribute("username")),
                            secret: pa_secret_item_secret(list, i).map { String(cString: $0) }))
                }
                return items
            }
        }
    }

    /// Stores an item, replacing every item with the same store, server and kind.
    public func store(_ attributes: CredentialAttributes, secret: String, access: CredentialWriteAccess) throws {
        try store(attributes, secret: secret, replacing: CredentialQuery(replacing: attributes), access: access)
    }

    /// Stores an item and removes every other item matching `replacing`, as one change.
    ///
    /// Under the keyring's exclusive cross-process lock, the item is created with the Secret
    /// Service's replace flag (an item with exactly these attributes is replaced in place, so a
    /// reader never finds none), then the other items in `replacing` are deleted.
    public func store(
        _ attributes: CredentialAttributes, secret: String, replacing: CredentialQuery, access: CredentialWriteAccess
    ) throws {
        try run(shared: false) {
            try Self.withAttributes([
                ("store", attributes.store), ("server", attributes.server), ("kind", attributes.kind),
                ("username", attributes.username),
            ]) { table in
                try Self.withAttributes(Self.pairs(replacing)) { scope in
                    var error = pa_secret_error()
                    if pa_secret_replace(table, scope, attributes.label, secret, &error) >= 0 { return }
                    // A Secret Service too busy to answer in D-Bus's 25 s (many writers on a loaded
                    // machine) is asked once more: the replace is idempotent (the same item replaced
                    // in place, the same others deleted), and the exclusive lock is still held.
                    guard Self.isTimeout(error) else { throw Self.failure("store a credential", error) }
                    error = pa_secret_error()
                    if pa_secret_replace(table, scope, attributes.label, secret, &error) < 0 {
                        throw Self.failure("store a credential", error)
                    }
                }
            }
        }
    }

    /// The password the Python `keyring` module keeps for `service` and `username` (its Secret
    /// Service backend's attributes; the ArcGIS API for Python keeps a profile's password so), read
    /// in the same `plain` session as ``lookup(_:)``; nil when there is none. Nothing is changed,
    /// and no item of portal-auth's own matches (they carry no `service` attribute).
    ///
    /// - Throws: ``PortalAuthError/Code/keyringLocked`` when only a locked item matches; the
    ///   keyring's errors as ``lookup(_:)`` throws them.
    public func pythonKeyringPassword(service: String, username: String) throws -> String? {
        try run(shared: true) {
            let keys = [strdup("service"), strdup("username")]
            let values = [strdup(service), strdup(username)]
            defer { (keys + values).forEach { free($0) } }
            let keyPointers = keys.map { UnsafePointer($0) }
            let valuePointers = values.map { $0.map { UnsafePointer($0) } }
            let table = keyPointers.withUnsafeBufferPointer { k in
                valuePointers.withUnsafeBufferPointer { v in pa_secret_attributes_new(k.baseAddress, v.baseAddress, 2) }
            }!
            defer { g_hash_table_unref(table) }
            var text: UnsafeMutablePointer<CChar>?
            var error = pa_secret_error()
            switch pa_secret_lookup_plain(table, &text, nil, &error) {
            case 1:
                defer { pa_secret_free(text) }
                return text.map { String(cString: $0) }
            case 0: return nil
            case -2:
                throw PortalAuthError(
                    .keyringLocked, "the keyring item of \(service) for \(username) is locked", remedy: .unlockKeyring)
            default:
                if Self.isTimeout(error) { throw Self.slow("read a password", error) }
                throw Self.failure("read a password", error)
            }
        }
    }

    /// Deletes every matching item.
    @discardableResult
    public func delete(_ query: CredentialQuery, access: CredentialWriteAccess) throws -> Int {
        try run(shared: false) {
            try Self.withAttributes(Self.pairs(query)) { table in
                var error = pa_secret_error()
                let removed = pa_secret_clear_all(table, &error)
                if removed < 0 { throw Self.failure("remove credentials", error) }
                return Int(removed)
            }
        }
    }
}
