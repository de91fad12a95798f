internal import CPortalAuthFront

#if canImport(Glibc)
import Glibc
#endif

/// Reads the answer the full program recorded for a request (the library's `KeyringAnswerBook`
/// writes the file and says what each entry stands on), and gives it only when all of it still
/// holds: the keyring's item index is the file it was recorded with (portal-auth changed nothing
/// since), before the items are read and after; every item it was made from has the secret it had
/// (SHA-256); the token is not due for renewal. Nil otherwise, and on any error: the full program's.
enum AnswerBook {
    /// The largest file read (the writer's limit).
    static let maximumSize = 64 * 1024

    /// The bytes to print for `request`, or nil.
    static func answer(to request: TokenRequest) -> String? {
        guard let bus = TokenRequest.variable("DBUS_SESSION_BUS_ADDRESS"), let directory = LockFolder.path() else {
            return nil
        }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        defer { close(folder) }
        var info = stat()
        guard fstat(folder, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else { return nil }
        let stem = LockFolder.fileStem(for: "keyring " + bus)
        guard let stamp = indexStamp(in: folder, name: stem + ".index"),
            let text = readFile(in: folder, name: stem + ".answers"),
            let entry = Entry(findingIn: text, key: hex(request.answerKey), stamp: stamp)
        else { return nil }
        // (The full program says more on a terminal: a note on the token's referer.)
        if entry.onlyWithoutTerminal, isatty(2) == 1 { return nil }
        if let until = entry.validUntil {
            var now = timespec()
            guard clock_gettime(CLOCK_REALTIME, &now) == 0, Int64(now.tv_sec) < until else { return nil }
        }
        // Before a secret is in memory, as the full program does first.
        _ = pa_front_disable_core_dumps()
        guard let token = entry.readToken() else { return nil }
        defer { wipe(token) }
        // (A change that began while the items were read removed the index first.)
        guard indexStamp(in: folder, name: stem + ".index") == stamp else { return nil }
        return entry.pieces.joined(separator: String(decoding: token, as: UTF8.self))
    }

    /// The index file's identity, as the library's change stamp takes it: device, inode, size, and
    /// the modification and change times; nil when it is missing or not this user's.
    static func indexStamp(in folder: Int32, name: String) -> [UInt64]? {
        let fd = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid() else { return nil }
        return [
            UInt64(info.st_dev), UInt64(info.st_ino), UInt64(bitPattern: Int64(info.st_size)),
            UInt64(bitPattern: Int64(info.st_mtim.tv_sec)), UInt64(bitPattern: Int64(info.st_mtim.tv_nsec)),
            UInt64(bitPattern: Int64(info.st_ctim.tv_sec)), UInt64(bitPattern: Int64(info.st_ctim.tv_nsec)),
        ]
    }

    /// A regular file of this user's alone, at most ``maximumSize``, as text.
    static func readFile(in folder: Int32, name: String) -> String? {
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0, info.st_size <= maximumSize
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let moved = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if moved < 0, errno == EINTR { continue }
            guard moved > 0 else { break }
            done += moved
        }
        return String(decoding: bytes[..<done], as: UTF8.self)
    }

    /// Lower-case hexadecimal of the UTF-8 bytes (as the writer keys entries).
    static func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of lower-case hexadecimal text; nil for anything else.
    static func unhex(_ text: Substring) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    static func wipe(_ bytes: [UInt8]) {
        var bytes = bytes
        bytes.withUnsafeMutableBytes { pa_front_wipe($0.baseAddress, $0.count) }
    }
}
