import Foundation

@testable import PortalAuth

/// A private temporary folder of real files for the secret file tests, removed when dropped.
final class SecretFolder {
    /// Its path.
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/secret-files-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        // Canonical (no `//`, no link): what a resolved link is compared with.
        path = URL(fileURLWithPath: made).resolvingSymlinksInPath().path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `contents` to `name` (in the folder) with `mode`, and returns its path.
    @discardableResult
    func write(_ name: String, _ contents: String, mode: mode_t = 0o600) -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        precondition(descriptor >= 0, "cannot write \(file)")
        let bytes = Array(contents.utf8)
        precondition(bytes.isEmpty || Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
        close(descriptor)
        chmod(file, mode)
        return file
    }

    /// Makes `name` a symbolic link to `target` (as written), and returns its path.
    @discardableResult
    func link(_ name: String, to target: String) -> String {
        let file = path + "/" + name
        precondition(symlink(target, file) == 0, "cannot link \(file)")
        return file
    }

    /// Makes the folder `name`, and returns its path.
    @discardableResult
    func folder(_ name: String) -> String {
        let folder = path + "/" + name
        precondition(mkdir(folder, 0o700) == 0, "cannot make \(folder)")
        return folder
    }

    /// The problem `read` of `file` throws for, or nil when it reads.
    static func problem(reading file: String) -> SecretFileProblem? {
        do {
            _ = try SecretFile(path: file).read()
            return nil
        } catch let error as PortalAuthError {
            guard case .fixSecretFile(let path, let problem) = error.remedy else { return nil }
            precondition(path == file && error.message.contains(file), "the error names another file: \(error)")
            return problem
        } catch {
            return nil
        }
    }
}
