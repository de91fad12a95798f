import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension WhoAmI {
    /// What `whoami` shows of an ArcGIS portal's signed-in user: `portals/self` (the portal and
    /// its helper services) and the user's profile (`community/users/NAME`), each field taken
    /// from the profile first and from the `user` of `portals/self` (or `community/self`) when the
    /// profile lacks it.
    struct Profile {
        /// The portal the user is signed in to.
        let context: ServerContext
        /// The user's name on the portal.
        let username: String
        /// `portals/self`.
        let selfInfo: JSONValue
        /// The user `portals/self` names, or `community/self` when it names none.
        let user: JSONValue?
        /// `community/users/NAME`.
        let profile: JSONValue

        /// Asks the portal of `context` who is signed in, and for that user's profile.
        static func fetch(context: ServerContext, manager: AuthenticationManager) async throws -> Profile {
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
            return Profile(context: context, username: username, selfInfo: selfInfo, user: user, profile: profile)
        }

        /// A text field of the profile, or of the user when the profile has none.
        func field(_ name: String) -> String? { profile[name]?.stringValue ?? user?[name]?.stringValue }

        /// When the user joined the portal.
        var created: Date? {
            (profile["created"] ?? user?["created"])?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        }

        /// The portal's name (`name`, or `portalName` on older portals).
        var portalName: String? { selfInfo["name"]?.stringValue ?? selfInfo["portalName"]?.stringValue }

        /// The geocoding service the portal names first.
        var geocode: String? { selfInfo["helperServices"]?["geocode"]?[0]?["url"]?.stringValue }

        /// The routing service the portal names.
        var route: String? { selfInfo["helperServices"]?["route"]?["url"]?.stringValue }

        /// Downloads the user's thumbnail image into the file `path`; an error when the user has none.
        func saveThumbnail(to path: String, manager: AuthenticationManager) async throws {
            guard let name = field("thumbnail"), !name.isEmpty else {
                throw PortalAuthError(.invalidArgument, "\(username) has no thumbnail on \(context)")
            }
            let image = try await manager.send(
                ArcGISRequest(
                    url: URL(
                        string: context.portalRESTURL
                            + "/community/users/\(FormEncoding.escape(username))/info/\(FormEncoding.escape(name))")!,
                    expectsJSON: false))
            try writeFile(path, image.http.body)
        }

        /// The `--json` answer; `thumbnailFile` is where the thumbnail was saved, if it was.
        func json(thumbnailFile: String?) -> JSONValue {
            var object: [String: JSONValue] = ["username": .string(username), "portal": .string(context.url)]
            object["fullName"] = field("fullName").map(JSONValue.string) ?? .null
            object["email"] = field("email").map(JSONValue.string) ?? .null
            object["memberSince"] = created.map { .string($0.iso8601) } ?? .null
            object["portalName"] = portalName.map(JSONValue.string) ?? .null
            object["helperServices"] = .object([
                "geocode": geocode.map(JSONValue.string) ?? .null, "route": route.map(JSONValue.string) ?? .null,
            ])
            if let thumbnailFile { object["thumbnailFile"] = .string(thumbnailFile) }
            return .object(object)
        }

        /// The text answer on stdout; `thumbnailFile` is where the thumbnail was saved, if it was.
        func printText(thumbnailFile: String?) {
            outputLine(
                "\(username)\(field("fullName").map { " (\($0))" } ?? "")\(field("email").map { " <\($0)>" } ?? "")")
            if let created { outputLine("member since: \(created.formatted(.iso8601.year().month().day()))") }
            outputLine("portal:       \(portalName ?? "?") (\(context.url))")
            outputLine("geocode:      \(geocode ?? "none")")
            outputLine("route:        \(route ?? "none")")
            if let thumbnailFile { outputLine("thumbnail:    saved to \(thumbnailFile)") }
        }
    }
}
