import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `serve --state-file FILE`: `{"url": BASE, "pid": N}` while the server runs (mode 0600, written
/// atomically: a reader sees the whole file or none), removed when it stops.
struct ServeStateFile {
    let path: String

    /// Writes the file for `baseURL` and this process.
    func write(baseURL: String) throws {
        let object: JSONValue = .object(["url": .string(baseURL), "pid": .number(Double(getpid()))])
        try writeFile(path, Array((object.description + "\n").utf8), mode: 0o600)
    }

    /// Removes the file (when it is still this process's).
    func remove() {
        guard let bytes = FileManager.default.contents(atPath: path),
            let object = try? JSONValue.parse(Array(bytes), source: path),
            object["pid"]?.doubleValue == Double(getpid())
        else { return }
        unlink(path)
    }

    /// The base URL a running server wrote to `path`.
    static func baseURL(at path: String) throws -> String {
        guard let bytes = FileManager.default.contents(atPath: path),
            let object = try? JSONValue.parse(Array(bytes), source: path), let url = object["url"]?.stringValue
        else {
            throw PortalAuthError(
                .invalidArgument, "\(path) is not the state file of a running portal-auth serve")
        }
        return url
    }
}
