internal import CPortalAuth
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A CA bundle is checked before libcurl gets it: libcurl says only that it had trouble with
/// "the CA cert" for a file that is missing, unreadable or not PEM at all (a DER certificate, a
/// PKCS#12 file, a key). Once per path, size and modification time.
public enum CABundleCheck {
    private static let checked = Locked<Set<CheckedFile>>([])

    /// A bundle found good: its path and the file as it was then (a change of its bytes, owner
    /// or mode moves its change time).
    private struct CheckedFile: Hashable {
        let path: String
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int
        let modifiedNanoseconds: Int
        let changed: Int
        let changedNanoseconds: Int
    }

    /// Throws when `path` cannot be read or holds no PEM certificate.
    public static func check(_ path: String) throws {
        var info = stat()
        let found = stat(path, &info) == 0
        let key = CheckedFile(
            path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec, changed: info.st_ctim.tv_sec,
            changedNanoseconds: info.st_ctim.tv_nsec)
        guard found, access(path, R_OK) == 0 else {
            throw PortalAuthError(
                .invalidArgument, "the CA bundle \(path) cannot be read", remedy: .provideCABundle(path: path))
        }
        // (Unchanged since it was found good: not read again.)
        if checked.withLock({ $0.contains(key) }) { return }
        guard (info.st_mode & S_IFMT) == S_IFREG, let data = FileManager.default.contents(atPath: path) else {
            throw PortalAuthError(
                .invalidArgument, "the CA bundle \(path) cannot be read (it is not a regular file)",
                remedy: .provideCABundle(path: path))
        }
        let bytes = Array(data)
        guard let problem = problem(bytes) else {
            // (Not a file changed within the last two seconds: the file system's clock is coarser
            // than its times' nanoseconds, and a change in the same tick would keep the same key.)
            let now = time(nil)
            if info.st_mtim.tv_sec < now - 1, info.st_ctim.tv_sec < now - 1 { checked.withLock { _ = $0.insert(key) } }
            return
        }
        throw PortalAuthError(
            .invalidArgument, "the CA bundle \(path) is not a PEM file of CA certificates (\(problem))",
            remedy: .provideCABundle(path: path))
    }

    /// What is wrong with the contents of a CA bundle, or nil when it holds a PEM certificate.
    static func problem(_ bytes: [UInt8]) -> String? {
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        let trusted = Array("-----BEGIN TRUSTED CERTIFICATE-----".utf8)
        if contains(bytes, marker) || contains(bytes, trusted) { return nil }
        if bytes.isEmpty { return "it is empty" }
        if bytes.first == 0x30 {
            return "it looks like a binary DER file: convert it with openssl x509 -inform der -in FILE -out FILE.pem"
        }
        if contains(bytes, Array("-----BEGIN ".utf8)) {
            return "it holds PEM blocks but no -----BEGIN CERTIFICATE----- (a key or a request?)"
        }
        return "no -----BEGIN CERTIFICATE----- line in it"
    }

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
