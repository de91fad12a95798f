internal import CLibSecret

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Answers that a short-lived reader gave from the keyring, kept so that the small `portal-auth`
/// program (Sources/portal-auth-front) can give the same answer again without deciding anything.
///
/// A caller that answered from the store alone (the `token` fast path: the core's scope decision,
/// ``CredentialStore/storedScopedCredential(for:)``, and nothing else) records what it printed:
/// the exact bytes, cut where the token goes. What the answer depended on is recorded with it:
/// - the keyring's ``KeyringItemIndex`` file as it was before the decision (its identity: every
///   change portal-auth makes to the keyring removes it first; the answer is recorded only when it
///   is still the same file afterwards),
/// - every item the decision read, by object path and the SHA-256 of its secret (so an item that
///   another program changed is noticed),
/// - and the moment after which the token is due for renewal.
///
/// A reader of the book checks all three, reads the token from its item, and prints the pieces
/// joined by it; anything else (no entry, another index, a changed item, a token due, any error)
/// is the full program's. The file, `STEM.answers` beside the index in the lock folder (0600,
/// written atomically, at most ``maximumSize``), holds no secret: object paths, digests of secrets
/// of high-entropy tokens, and the text around the token. After a version line and the index's
/// stamp (`stamp DEV INO SIZE MTIME MTIME_NS CTIME CTIME_NS`), one line an answer:
/// `answer KEY UNTIL CONDITION PATHS DIGESTS ITEM START END PIECES`: the key and each piece in
/// hexadecimal, UNTIL the last Unix second it holds (`-`: no expiry), CONDITION `-` or
/// `stderr-not-a-terminal`, the paths and digests separated by commas, the token's item (an index
/// into them) and byte range in its secret, the pieces (one more than the token's occurrences)
/// separated by commas.
public struct KeyringAnswerBook {
    /// At most this many answers (a script's loop uses one or two); the oldest goes first.
    package static let capacity = 16
    /// The file is never larger than this; an answer that does not fit is not kept.
    package static let maximumSize = 64 * 1024
    /// The longest key kept (in bytes): a longer request (a URL of kilobytes) is not recorded, so
    /// that one cannot push every other answer out.
    package static let maximumKeyLength = 2048
    /// The first line of the file (Sources/portal-auth-front reads the same). Its number goes up
    /// when what an answer prints changes (2: json's `source`), so that the small program gives no
    /// answer an older program recorded, and the older entries are dropped.
    package static let versionLine = "portal-auth token answers 2"

    private let before: CredentialStoreChangeStamp?

    /// Starts noting what the keyring backend reads, when `backend` is the keyring; nil otherwise.
    /// Call it before the decision whose answer is to be kept.
    public static func begin(_ backend: any CredentialStorageBackend) -> KeyringAnswerBook? {
        guard let keyring = backend as? KeyringCredentialBackend ?? (backend as? DefaultStoreBackend)?.keyringInUse
        else { return nil }
        KeyringCredentialBackend.readNotes.withLock { $0 = [] }
        return KeyringAnswerBook(before: keyring.changeStamp)
    }

    /// Stops noting what the keyring reads, when no answer is to be recorded (``record(key:output:token:validUntil:onlyWithoutTerminal:)``
    /// stops it too): nothing read later is kept.
    public func close() {
        KeyringCredentialBackend.readNotes.withLock { $0 = nil }
    }

    /// Keeps `output` as the answer to `key` (the caller's exact request, as the reader spells it),
    /// `token` cut out of it, valid until `validUntil` (nil: as long as the items stand). Nothing
    /// is kept when the keyring changed since ``begin(_:)``, an item was read without its path, the
    /// token is not in its item as it is printed, or the entry would not fit; that is no error.
    ///
    /// `onlyWithoutTerminal`: the answer holds only while stderr is not a terminal (the caller
    /// says more there, as `token` does of a token bound to a referer).
    public func record(
        key: String, output: String, token: String, validUntil: Date?, onlyWithoutTerminal: Bool = false
    ) {
        let notes = KeyringCredentialBackend.readNotes.withLock { notes in
            defer { notes = nil }
            return notes ?? []
        }
        guard let before, !notes.isEmpty, notes.count <= 8, !token.isEmpty, key.utf8.count <= Self.maximumKeyLength
        else { return }
        var paths: [String] = []
        var digests: [String] = []
        var tokenPlace: (item: Int, start: Int, end: Int)?
        for (index, note) in notes.enumerated() {
            guard let path = note.path, KeyringItemIndex.isObjectPath(path), let digest = Self.sha256(note.secret)
            else {
                return
            }
            paths.append(path)
            digests.append(digest)
            if tokenPlace == nil, let range = Self.onlyRange(of: token, in: note.secret) {
                tokenPlace = (index, range.lowerBound, range.upperBound)
            }
        }
        guard let tokenPlace else { return }
        let pieces = Self.pieces(of: output, around: token)
        let until = validUntil.map { String(Int64(($0.timeIntervalSince1970).rounded(.down)) - 1) } ?? "-"
        let line = [
            "answer", Self.hex(key), until, onlyWithoutTerminal ? "stderr-not-a-terminal" : "-",
            paths.joined(separator: ","), digests.joined(separator: ","),
            "\(tokenPlace.item)", "\(tokenPlace.start)", "\(tokenPlace.end)",
            pieces.map(Self.hex).joined(separator: ","),
        ].joined(separator: " ")
        KeyringCredentialBackend.keepAnswer(line, key: Self.hex(key), stamp: before)
    }

    /// The file's text with `line` as the newest answer, the entries of `text` kept when its stamp
    /// is `stamp` (an older file's are dropped), within ``capacity`` and ``maximumSize``; nil when
    /// `line` alone does not fit.
    package static func text(adding line: String, key: String, stamp: [UInt64], to text: String?) -> String? {
        let head = versionLine + "\n" + "stamp " + stamp.map(String.init).joined(separator: " ") + "\n"
        var entries: [Substring] = []
        if let text, text.hasPrefix(head) {
            entries = text.dropFirst(head.count).split(separator: "\n").filter {
                $0.hasPrefix("answer ") && !$0.hasPrefix("answer \(key) ")
            }
        }
        entries.append(line[...])
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        while !entries.isEmpty, head.utf8.count + entries.reduce(0, { $0 + $1.utf8.count + 1 }) > maximumSize {
            entries.removeFirst()
        }
        guard entries.last == line[...] else { return nil }
        return head + entries.map { $0 + "\n" }.joined()
    }

    /// The byte range of `token` in `secret` when it occurs there exactly once.
    package static func onlyRange(of token: String, in secret: String) -> Range<Int>? {
        let haystack = Array(secret.utf8)
        let needle = Array(token.utf8)
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        var found: Int?
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            guard haystack[start..<start + needle.count].elementsEqual(needle) else { continue }
            guard found == nil else { return nil }
            found = start
        }
        return found.map { $0..<$0 + needle.count }
    }

    /// `output` cut at every occurrence of `token` (one more piece than occurrences).
    package static func pieces(of output: String, around token: String) -> [String] {
        output.split(separator: token, omittingEmptySubsequences: false).map(String.init)
    }

    /// Lower-case hexadecimal of the UTF-8 bytes.
    package static func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// GLib's SHA-256 of the UTF-8 bytes, as the reader computes it.
    static func sha256(_ text: String) -> String? {
        var copy = text
        return copy.withUTF8 { buffer -> String? in
            guard let digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buffer.baseAddress, gsize(buffer.count))
            else {
                return nil
            }
            defer { g_free(digest) }
            return String(cString: digest)
        }
    }
}
