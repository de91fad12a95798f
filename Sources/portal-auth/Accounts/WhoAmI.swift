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
            let rest = context.portalRESTURL
            let selfInfo =
                try await manager.send(ArcGISRequest(url: URL(string: rest + "/portals/self")!)).json ?? .null
            var user = selfInfo["user"]
            if user?["username"] == nil {
                user = try await manager.send(ArcGISRequest(url: URL(string: rest + "/community/self")!)).json
            }
            guard let username = user?["username"]?.stringValue else {
                throw PortalAuthError(
                    .invalidResponse, "\(context) did not say who is signed in: it may not be an ArcGIS portal",
                    remedy: .checkURL)
            }
            let profile =
                try await manager.send(
                    ArcGISRequest(url: URL(string: rest + "/community/users/" + FormEncoding.escape(username))!)
                ).json ?? .null
            func field(_ name: String) -> String? { profile[name]?.stringValue ?? user?[name]?.stringValue }
            let created = (profile["created"] ?? user?["created"])?.doubleValue.map {
                Date(timeIntervalSince1970: $0 / 1000)
            }
            let helpers = selfInfo["helperServices"]
            let geocode = helpers?["geocode"]?[0]?["url"]?.stringValue
            let route = helpers?["route"]?["url"]?.stringValue

            if let thumbnail {
                guard let name = field("thumbnail"), !name.isEmpty else {
                    throw PortalAuthError(.invalidArgument, "\(username) has no thumbnail on \(context)")
                }
                let image = try await manager.send(
                    ArcGISRequest(
                        url: URL(
                            string: rest
                                + "/community/users/\(FormEncoding.escape(username))/info/\(FormEncoding.escape(name))")!,
                        expectsJSON: false))
                try writeFile(thumbnail, image.http.body)
            }

            if json {
                var object: [String: JSONValue] = ["username": .string(username), "portal": .string(context.url)]
                object["fullName"] = field("fullName").map(JSONValue.string) ?? .null
                object["email"] = field("email").map(JSONValue.string) ?? .null
                object["memberSince"] = created.map { .string($0.iso8601) } ?? .null
                object["portalName"] =
                    (selfInfo["name"]?.stringValue ?? selfInfo["portalName"]?.stringValue).map(JSONValue.string)
                    ?? .null
                object["helperServices"] = .object([
                    "geocode": geocode.map(JSONValue.string) ?? .null, "route": route.map(JSONValue.string) ?? .null,
                ])
                if let thumbnail { object["thumbnailFile"] = .string(thumbnail) }
                output(try JSONValue.object(object).jsonText(pretty: true))
            } else {
                outputLine(
                    "\(username)\(field("fullName").map { " (\($0))" } ?? "")\(field("email").map { " <\($0)>" } ?? "")"
                )
                if let created { outputLine("member since: \(created.formatted(.iso8601.year().month().day()))") }
                outputLine(
                    "portal:       \(selfInfo["name"]?.stringValue ?? selfInfo["portalName"]?.stringValue ?? "?") "
                        + "(\(context.url))"
                )
                outputLine("geocode:      \(geocode ?? "none")")
                outputLine("route:        \(route ?? "none")")
                if let thumbnail { outputLine("thumbnail:    saved to \(thumbnail)") }
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
