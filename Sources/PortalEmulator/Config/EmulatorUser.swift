/// A portal member the emulator knows. Passwords live only in the emulator's configuration:
/// it is a test server.
public struct EmulatorUser: Codable, Sendable, Equatable {
    /// Sign-in name.
    public var username: String
    /// Password accepted by generateToken.
    public var password: String
    /// Display name.
    public var fullName: String
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String
    /// E-mail address.
    public var email: String
    /// Account creation time, epoch milliseconds.
    public var created: Int64
    /// `org_admin`, `org_publisher` or `org_user`.
    public var role: String
    /// File name of the profile picture under `community/users/{u}/info/`, nil for none.
    public var thumbnail: String?
    /// The member's privileges that matter to the emulator (`premium:user:geocode`, …); nil grants
    /// every one in ``EmulatorAPIKey/allPrivileges``, as ArcGIS Online's default roles do.
    public var privileges: [String]?

    /// Creates a user; names default from the username.
    public init(
        username: String,
        password: String,
        fullName: String? = nil,
        firstName: String? = nil,
        lastName: String? = nil,
        email: String? = nil,
        created: Int64 = 1_700_000_000_000,
        role: String = "org_user",
        thumbnail: String? = nil,
        privileges: [String]? = nil
    ) {
        self.username = username
        self.password = password
        self.fullName = fullName ?? username
        self.firstName = firstName ?? (fullName ?? username).split(separator: " ").first.map(String.init) ?? username
        self.lastName = lastName ?? (fullName ?? "").split(separator: " ").dropFirst().joined(separator: " ")
        self.email = email ?? "\(username)@example.com"
        self.created = created
        self.role = role
        self.thumbnail = thumbnail
        self.privileges = privileges
    }

    /// Whether the member holds `privilege`.
    func holds(_ privilege: String) -> Bool {
        (privileges ?? EmulatorAPIKey.allPrivileges).contains(privilege)
    }

    /// alice: an administrator with a thumbnail.
    public static let alice = EmulatorUser(
        username: "alice", password: "alice-pass-123", fullName: "Alice Anderson", firstName: "Alice",
        lastName: "Anderson", email: "alice@example.com", created: 1_700_000_000_000, role: "org_admin",
        thumbnail: "alice.png")

    /// bob: an ordinary member without a thumbnail.
    public static let bob = EmulatorUser(
        username: "bob", password: "bob-pass-456", fullName: "Bob Brown", firstName: "Bob", lastName: "Brown",
        email: "bob@example.com", created: 1_710_000_000_000, role: "org_user", thumbnail: nil)

    private enum CodingKeys: String, CodingKey {
        case username, password, fullName, firstName, lastName, email, created, role, thumbnail, privileges
    }

    /// Decodes a user; only `username` and `password` are required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            username: try c.decode(String.self, forKey: .username),
            password: try c.decode(String.self, forKey: .password),
            fullName: try c.decodeIfPresent(String.self, forKey: .fullName),
            firstName: try c.decodeIfPresent(String.self, forKey: .firstName),
            lastName: try c.decodeIfPresent(String.self, forKey: .lastName),
            email: try c.decodeIfPresent(String.self, forKey: .email),
            created: try c.decodeIfPresent(Int64.self, forKey: .created) ?? 1_700_000_000_000,
            role: try c.decodeIfPresent(String.self, forKey: .role) ?? "org_user",
            thumbnail: try c.decodeIfPresent(String.self, forKey: .thumbnail),
            privileges: try c.decodeIfPresent([String].self, forKey: .privileges)
        )
    }

    /// Encodes every field (`thumbnail` as null when absent; `privileges` only when set).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(username, forKey: .username)
        try c.encode(password, forKey: .password)
        try c.encode(fullName, forKey: .fullName)
        try c.encode(firstName, forKey: .firstName)
        try c.encode(lastName, forKey: .lastName)
        try c.encode(email, forKey: .email)
        try c.encode(created, forKey: .created)
        try c.encode(role, forKey: .role)
        try c.encode(thumbnail, forKey: .thumbnail)
        try c.encodeIfPresent(privileges, forKey: .privileges)
    }
}
