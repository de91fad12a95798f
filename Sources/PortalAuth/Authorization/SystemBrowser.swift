internal import CPortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Opens authorization pages in the user's browser: `$BROWSER` when set (a colon-separated list of
/// commands; `%s` stands for the URL, otherwise the URL is the last argument), else `xdg-open`.
/// The browser gets no descriptor but /dev/null, and is not waited for.
public struct SystemBrowser: Sendable {
    /// The environment variable's value, when set.
    public var browserVariable: String?

    /// Reads `$BROWSER` from the environment.
    public init(browserVariable: String? = ProcessInfo.processInfo.environment["BROWSER"]) {
        self.browserVariable = browserVariable?.isEmpty == true ? nil : browserVariable
    }

    /// The commands to try, in order, as argument vectors with the URL in place.
    public func commands(for url: URL) -> [[String]] {
        let entries = browserVariable.map { $0.split(separator: ":").map(String.init) } ?? []
        var commands: [[String]] = entries.compactMap { entry in
            var words = entry.split(separator: " ").map(String.init)
            guard !words.isEmpty else { return nil }
            if words.contains(where: { $0.contains("%s") }) {
                words = words.map { $0.replacing("%s", with: url.absoluteString) }
            } else {
                words.append(url.absoluteString)
            }
            return words
        }
        if browserVariable == nil { commands.append(["xdg-open", url.absoluteString]) }
        return commands
    }

    /// Starts the first command that can be started; returns its description, or throws when
    /// none could be (the caller still shows the URL so the user can open it by hand).
    @discardableResult
    public func open(_ url: URL) throws -> String {
        var failures: [String] = []
        for command in commands(for: url) {
            let argv = command.map { strdup($0) } + [nil]
            var envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { argv.forEach { free($0) }; envp.indices.forEach { free(envp[$0]) } }
            var pid: pid_t = 0
            let rc = pa_spawn(command[0], argv, &envp, -1, -1, -1, 1, &pid)
            if rc == 0 {
                // Reap it whenever it finishes; a browser may run for hours.
                let child = pid
                BlockingIO.detached {
                    var code: Int32 = 0; _ = pa_wait(child, 0, &code)
                }
                return command[0]
            }
            failures.append("\(command[0]): \(String(cString: strerror(rc)))")
        }
        throw PortalAuthError(
            .invalidConfiguration,
            "no browser could be started (\(failures.joined(separator: "; ")))", remedy: .openSignInPageYourself)
    }
}
