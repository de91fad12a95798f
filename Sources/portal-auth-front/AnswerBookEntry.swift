internal import CPortalAuthFront

#if canImport(Glibc)
import Glibc
#endif

extension AnswerBook {
    /// One `answer` line: `answer KEY UNTIL CONDITION PATHS DIGESTS ITEM START END PIECES` (see the library's
    /// `KeyringAnswerBook`), each field checked as it is read.
    struct Entry {
        /// The last second (Unix time) the answer may be given in; nil: no expiry.
        var validUntil: Int64?
        /// The answer holds only while stderr is not a terminal (`stderr-not-a-terminal`; else `-`).
        var onlyWithoutTerminal: Bool
        /// The items the answer was made from, and the SHA-256 of each one's secret.
        var items: [(path: String, digest: String)]
        /// Where the token is: the item, and the byte range of its secret.
        var tokenItem: Int
        var tokenRange: Range<Int>
        /// The bytes printed, cut where the token goes.
        var pieces: [String]

        /// The entry for `key` in `text`, when the file's stamp line is `stamp`; nil otherwise.
        init?(findingIn text: String, key: String, stamp: [UInt64]) {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.count >= 2, lines[0] == "portal-auth token answers 2",
                lines[1] == "stamp " + stamp.map({ String($0) }).joined(separator: " ")
            else { return nil }
            lines.removeFirst(2)
            let prefix = "answer " + key + " "
            guard let line = lines.last(where: { $0.hasPrefix(prefix) }) else { return nil }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 10, fields[3] == "-" || fields[3] == "stderr-not-a-terminal" else { return nil }
            onlyWithoutTerminal = fields[3] != "-"
            if fields[2] == "-" {
                validUntil = nil
            } else {
                guard let until = Int64(fields[2]) else { return nil }
                validUntil = until
            }
            let paths = fields[4].split(separator: ",").map(String.init)
            let digests = fields[5].split(separator: ",").map(String.init)
            guard !paths.isEmpty, paths.count <= 8, paths.count == digests.count,
                paths.allSatisfy({ $0.hasPrefix("/") }), digests.allSatisfy({ $0.utf8.count == 64 }),
                let item = Int(fields[6]), paths.indices.contains(item),
                let start = Int(fields[7]), let end = Int(fields[8]), start >= 0, start < end
            else { return nil }
            var pieces: [String] = []
            for piece in fields[9].split(separator: ",", omittingEmptySubsequences: false) {
                guard let bytes = AnswerBook.unhex(piece) else { return nil }
                pieces.append(String(decoding: bytes, as: UTF8.self))
            }
            guard pieces.count >= 2 else { return nil }
            items = Array(zip(paths, digests))
            tokenItem = item
            tokenRange = start..<end
            self.pieces = pieces
        }

        /// The token, read from its item in one `plain` session with every other item, when every
        /// secret has its recorded digest; nil otherwise.
        func readToken() -> [UInt8]? {
            let paths = items.map { strdup($0.path) }
            defer { paths.forEach { free($0) } }
            var secrets = [UnsafeMutablePointer<CChar>?](repeating: nil, count: items.count)
            var lengths = [Int](repeating: 0, count: items.count)
            let pointers = paths.map { UnsafePointer($0) }
            let read = pointers.withUnsafeBufferPointer { paths in
                secrets.withUnsafeMutableBufferPointer { secrets in
                    lengths.withUnsafeMutableBufferPointer { lengths in
                        pa_front_read_plain(
                            paths.baseAddress, Int32(items.count), secrets.baseAddress, lengths.baseAddress)
                    }
                }
            }
            guard read == 1 else { return nil }
            defer {
                for (secret, length) in zip(secrets, lengths) {
                    pa_front_wipe(secret, length)
                    free(secret)
                }
            }
            var digest = [CChar](repeating: 0, count: 65)
            for (index, item) in items.enumerated() {
                guard let secret = secrets[index], pa_front_sha256_hex(secret, lengths[index], &digest) == 0,
                    String(decoding: digest.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self) == item.digest
                else { return nil }
            }
            guard let secret = secrets[tokenItem], tokenRange.upperBound <= lengths[tokenItem] else { return nil }
            return secret.withMemoryRebound(to: UInt8.self, capacity: lengths[tokenItem]) {
                Array(UnsafeBufferPointer(start: $0 + tokenRange.lowerBound, count: tokenRange.count))
            }
        }
    }
}
