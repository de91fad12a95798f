/// The community user object, as `community/self`, `community/users/{u}` and
/// `portals/self.user` return it.
enum UserProfile {
    /// The portal's organization id.
    static let organizationID = "0123456789ABCDEF"

    /// The user JSON; `email` only when the viewer is the user or an administrator.
    static func json(_ user: EmulatorUser, viewer: EmulatorUser?) -> JSONValue {
        let showsEmail = viewer.map { $0.username == user.username || $0.role == "org_admin" } ?? false
        var members: [(String, JSONValue)] = [
            ("username", .string(user.username)),
            ("fullName", .string(user.fullName)),
            ("firstName", .string(user.firstName)),
            ("lastName", .string(user.lastName)),
        ]
        if showsEmail { members.append(("email", .string(user.email))) }
        members += [
            ("description", .null),
            ("thumbnail", .optional(user.thumbnail)),
            ("created", .int(user.created)),
            ("modified", .int(user.created + 86_400_000)),
            ("provider", .string("arcgis")),
            ("orgId", .string(organizationID)),
            ("role", .string(user.role)),
            ("privileges", .array(privileges(for: user.role).map(JSONValue.string))),
            ("level", .string("2")),
            ("userType", .string("both")),
            ("access", .string("org")),
        ]
        return .object(members)
    }

    /// A plausible privilege list for a role.
    static func privileges(for role: String) -> [String] {
        let user = ["portal:user:createItem", "portal:user:joinGroup", "portal:user:viewOrgUsers"]
        return role == "org_admin" ? ["portal:admin:viewUsers", "portal:admin:updateUsers"] + user : user
    }
}
