#if canImport(Glibc)
import Glibc
#endif

/// Where portal-auth last found its items in one keyring, so that a token lookup in a large
/// keyring reads its item without a search.
///
/// gnome-keyring looks at every item of every collection on each search: with 10,000 items, a
/// `SearchItems` takes about 8 ms, more than the rest of a cached token lookup's work in the
/// service. The index keeps, for the queries looked up lately, the D-Bus object path of the item
/// found (an `item` entry), that a lookup found no item in an unlocked keyring (a `none` entry,
/// for ``noItemLifetime``: a long URL's candidate contexts are each looked up, and all but one
/// miss), and whether any item matched (a `has` entry, for ``KeyringCredentialBackend/contains(_:)``),
/// in a file beside the keyring's lock file.
/// - Readers add entries while they hold the keyring's lock shared. Every change portal-auth makes
///   to the keyring first removes the whole index, under the exclusive lock, so no entry is older
///   than portal-auth's last change.
/// - An `item` entry is a hint: the caller checks the secret read there (``KeyringCredentialBackend/lookup(_:verifying:)``),
///   and an item that is gone, locked or not the query's is searched for again.
/// - A `has` or `none` entry is trusted (a `none` entry only until it lapses). A portal-auth item that another program adds to the keyring (not
///   through this library) is seen after portal-auth's next change of the keyring, or when the
///   index is removed with the lock folder (the login session's runtime folder is cleared at
///   log-out; without one, the lock folder is in the user's cache folder, see ``CrossProcessLock``).
///
/// It holds no secret: the query's attributes (hexadecimal) and object paths, 0600, in the lock
/// folder that only the user may enter; at most ``capacity`` entries, the oldest dropped first.
package struct KeyringItemIndex: Equatable {
    /// What an entry says.
    package enum Entry: Equatable {
        /// The item a lookup found, by its D-Bus object path.
        case item(path: String)
        /// Whether any item matched.
        case has(Bool)
        /// A lookup found no item, locked or not; trusted until `until` (seconds since 1970).
        case noItem(until: Int)
    }

    /// How long a `none` entry is trusted, in seconds: a change made where this index is not the
    /// one removed (another session that names the same bus another way, with another lock
    /// folder or lock key) is seen within it.
    package static let noItemLifetime = 30

    /// At most this many entries (a script's loop uses one or two).
    package static let capacity = 64
    /// A file larger than this is not read (the entries above take under 40 KiB).
    package static let maximumSize = 64 * 1024
    /// The longest key kept: a query for a longer URL is not indexed (it is searched for each
    /// time), so that one long URL cannot take the index past ``maximumSize`` for every other.
    package static let maximumKeyLength = 600

    private var entries: [(key: String, value: String)] = []

    /// An empty index.
    package init() {}

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    // MARK: Entries

    /// The prefixes of an entry's key, by what it says.
    private enum Kind: String { case item, has, none }

    private static func key(_ query: CredentialQuery, _ kind: Kind) -> String {
        var bytes: [UInt8] = []
        // (A username only where the query names one: the keys of earlier versions stay the same.)
        for field in [query.store, query.server, query.kind] + (query.username.map { [$0] } ?? []) {
            if let field {
                bytes.append(UInt8(ascii: "=")); bytes += field.utf8
            } else {
                bytes.append(UInt8(ascii: "-"))
            }
            bytes.append(0)
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(bytes.count * 2)
        for byte in bytes { hex += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return kind.rawValue + ":" + String(decoding: hex, as: UTF8.self)
    }

    /// The `item` entry of `query`: the object path where its item was found.
    package func itemPath(_ query: CredentialQuery) -> String? {
        let key = Self.key(query, .item)
        return entries.last { $0.key == key }?.value
    }

    /// Whether a lookup of `query` found no item (a `none` entry that has not lapsed at `now`,
    /// seconds since 1970).
    package func hasNoItem(_ query: CredentialQuery, now: Int) -> Bool {
        let key = Self.key(query, .none)
        return entries.contains { $0.key == key && (Int($0.value) ?? 0) > now }
    }

    /// The `has` entry of `query`.
    package func has(_ query: CredentialQuery) -> Bool? {
        let key = Self.key(query, .has)
        return entries.last { $0.key == key }.map { $0.value == "1" }
    }

    /// Sets the entry of `query`, as the newest.
    package mutating func set(_ entry: Entry, for query: CredentialQuery) {
        let key: String
        let value: String
        switch entry {
        case .item(let path):
            guard Self.isObjectPath(path) else { return }
            (key, value) = (Self.key(query, .item), path)
        case .has(let found): (key, value) = (Self.key(query, .has), found ? "1" : "0")
        case .noItem(let until): (key, value) = (Self.key(query, .none), String(until))
        }
        guard key.utf8.count <= Self.maximumKeyLength else { return }
        // (An item found replaces what said there was none, and the other way round.)
        let other: String? =
            switch entry {
            case .item: Self.key(query, .none)
            case .noItem: Self.key(query, .item)
            case .has: nil
            }
        entries.removeAll { $0.key == key || $0.key == other }
        entries.append((key, value))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    /// Whether `text` is a D-Bus object path (`/`, or `/` and elements of `[A-Za-z0-9_]`).
    package static func isObjectPath(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            let element =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: "_")
            guard element || (byte == UInt8(ascii: "/") && previous != UInt8(ascii: "/")) else { return false }
            previous = byte
        }
        return true
    }

    // MARK: Text

    /// The file's text: a version line, then one `key value` line per entry, oldest first.
    package var text: String {
        entries.reduce(into: "portal-auth keyring index 1\n") { $0 += "\($1.key) \($1.value)\n" }
    }

    /// Reads an index's text; lines it does not know are left out, and text of another version
    /// is an empty index.
    package init(parsing text: String) {
        // (Bytes, not characters: "\r\n" is one character, and would join two lines.)
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let first = lines.first, first.elementsEqual("portal-auth keyring index 1".utf8) else { return }
        lines.removeFirst()
        for line in lines {
            let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let (key, value) = (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self))
            if key.hasPrefix("item:"), Self.isKey(key.dropFirst(5)), Self.isObjectPath(value) {
                entries.append((key, value))
            } else if key.hasPrefix("has:"), Self.isKey(key.dropFirst(4)), value == "0" || value == "1" {
                entries.append((key, value))
            } else if key.hasPrefix("none:"), Self.isKey(key.dropFirst(5)), (1...12).contains(parts[1].count),
                parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            {
                entries.append((key, value))
            }
        }
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    /// Whether `hex` is what ``key(_:_:)`` makes after its prefix: pairs of lower-case hex digits.
    private static func isKey(_ hex: Substring) -> Bool {
        !hex.isEmpty && hex.utf8.count % 2 == 0
            && hex.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    // MARK: The file

    /// The index kept in `folder` as `name`; empty when there is none or it cannot be read.
    static func read(in folder: CrossProcessLock.Folder, name: String) -> KeyringItemIndex {
        let fd = openat(folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return KeyringItemIndex() }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= maximumSize else {
            return KeyringItemIndex()
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let filled = bytes.withUnsafeMutableBytes { buffer in
            transfer(buffer.count) { done in Glibc.read(fd, buffer.baseAddress! + done, buffer.count - done) }
        }
        return KeyringItemIndex(parsing: String(decoding: bytes[..<filled], as: UTF8.self))
    }

    /// Replaces the file in `folder` with this index, atomically (a 0600 file renamed over it).
    /// An index that cannot be written is no error: the next lookup searches.
    func write(in folder: CrossProcessLock.Folder, name: String) {
        let temporary = "\(name).\(getpid())"
        let fd = openat(folder.descriptor, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { buffer in
            Self.transfer(buffer.count) { done in Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done) }
        }
        let complete = written == bytes.count && fchmod(fd, 0o600) == 0
        close(fd)
        if !complete || renameat(folder.descriptor, temporary, folder.descriptor, name) != 0 {
            unlinkat(folder.descriptor, temporary, 0)
        }
    }

    /// Calls `step` (a read or write of the bytes after the first `done`) until `count` bytes are
    /// done, it fails, or it reaches the end; an interrupted call is made again. How many were done.
    private static func transfer(_ count: Int, _ step: (_ done: Int) -> Int) -> Int {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved < 0, errno == EINTR { continue }
            guard moved > 0 else { break }
            done += moved
        }
        return done
    }

    /// Removes the index file from `folder` (before a change to the keyring).
    static func remove(in folder: CrossProcessLock.Folder, name: String) throws {
        guard unlinkat(folder.descriptor, name, 0) == 0 || errno == ENOENT else {
            let code = errno
            let text = String(cString: strerror(code))
            throw PortalAuthError(
                .storeFailure,
                "cannot remove the keyring index \(folder.path)/\(name) before changing the keyring: \(text)",
                remedy: .makePrivate(path: folder.path),
                cause: .posix(code: code, message: text))
        }
        removeOthers(in: folder, keeping: name)
    }

    /// Removes the folder's other index files, best effort: those of the same keyring named another
    /// way (a session whose `DBUS_SESSION_BUS_ADDRESS` is spelled otherwise, or unset, keeps its own
    /// lock and index beside this one), so that their entries do not outlive this change.
    private static func removeOthers(in folder: CrossProcessLock.Folder, keeping name: String) {
        let duplicate = dup(folder.descriptor)
        guard duplicate >= 0 else { return }
        guard let directory = fdopendir(duplicate) else {
            close(duplicate)
            return
        }
        defer { closedir(directory) }
        var others: [String] = []
        while let entry = readdir(directory) {
            let other = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if other != name, other.hasSuffix(".index") { others.append(other) }
        }
        for other in others { unlinkat(folder.descriptor, other, 0) }
    }
}
