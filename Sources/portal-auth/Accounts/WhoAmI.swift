import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth whoami`: the signed-in user and the portal's helper services.
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the signed-in user, the portal, and its helper services.",
        discussion: """
            Examples:
              portal-auth whoami
              portal-auth whoami --portal https://host/portal --json
              portal-auth whoami --thumbnail me.png
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var account: AccountOption

    @Option(
        name: [.customLong("portal"), .customLong("url")],
        help: ArgumentHelp(
            "The portal (the only signed-in one by default; --url: the same, for a server signed in to with login "
                + "--url).",
            valueName: "url"))
    var portal: String?

    @Flag(help: "Print JSON.")
    var json = false

    @Option(help: ArgumentHelp("Save the user's thumbnail image to this file.", valueName: "file"))
    var thumbnail: String?

    func run() async throws {
        try await runReportingErrors {
            let typed = try portal.map { try PortalURLInput.read($0).absoluteString }
            let (manager, target) = try await global.managerAndTarget(
                typed, storedAccount: account.name, naming: .whoami)
            let context = try ServerContext(url: target)
            if try await APIKeyLogin.whoAmI(target, manager: manager, json: json) { return }  // API key (#22)
            if try await Self.describeOtherCredential(target, context: context, manager: manager, json: json) {
                return
            }
            let profile = try await Profile.fetch(context: context, manager: manager)
            if let thumbnail { try await profile.saveThumbnail(to: thumbnail, manager: manager) }
            if json {
                output(try profile.json(thumbnailFile: thumbnail).jsonText(pretty: true))
            } else {
                profile.printText(thumbnailFile: thumbnail)
            }
        }
    }
}

/// Writes a file atomically (temp file + rename).
func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws {
    let temp = path + ".tmp-\(getpid())"
    // A new file only, never through a link planted at the temporary name (another user's, in a
    // shared folder): one left by a crashed run of this process id is removed once.
    let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
    var fd = open(temp, flags, mode)
    if fd < 0, errno == EEXIST {
        unlink(temp)
        fd = open(temp, flags, mode)
    }
    guard fd >= 0 else {
        throw PortalAuthError(.invalidArgument, "cannot write \(path): \(String(cString: strerror(errno)))")
    }
    var written = 0
    while written < bytes.count {
        let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n <= 0 {
            close(fd); unlink(temp);
            throw PortalAuthError(.invalidArgument, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        written += n
    }
    fsync(fd)
    close(fd)
    guard rename(temp, path) == 0 else {
        unlink(temp);
        throw PortalAuthError(.invalidArgument, "cannot write \(path): \(String(cString: strerror(errno)))")
    }
}
