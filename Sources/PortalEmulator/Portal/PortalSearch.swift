import Foundation

/// The portal's listings: `search` (items), `portals/self/users` (members) and
/// `community/users` (user search), paged the ArcGIS way (`start` is 1-based, `num` per page,
/// `nextStart` -1 on the last page). Members and items are visible to signed-in members only.
struct PortalSearch: Sendable {
    let context: EmulatorContext

    /// The one item the portal holds: the federated server's Parcels feature service.
    static let parcelsItemID = "9f1c2b3a4d5e4f60a1b2c3d4e5f60718"

    /// `/sharing/rest/search?q=`: items whose fields match every term of `q`.
    func items(_ request: IncomingRequest) -> OutgoingResponse {
        signedIn(request, apiKeys: .needs(EmulatorAPIKey.viewOrgItems)) { record in
            let terms = SearchTerms(request.parameter("q") ?? "")
            // API key credentials made at run time are their owners' own (as in ArcGIS: private items).
            let own = context.apiKeyApps.all.filter { $0.owner.lowercased() == record.username.lowercased() }
            let items = ([parcelsItem(for: request)] + own.map(\.item)).filter { terms.matches(item: $0) }
            return page(request, key: "results", of: items.map(\.json), extra: [("query", .string(terms.text))])
        }
    }

    /// `/sharing/rest/content/items/{id}`: one item by id.
    func item(_ request: IncomingRequest, id: String) -> OutgoingResponse {
        signedIn(request, apiKeys: .needs(EmulatorAPIKey.viewOrgItems)) { _ in
            let item = parcelsItem(for: request)
            guard id.lowercased() == item.id else {
                return Rendering.error(
                    ArcGISError(
                        code: 400, message: "Item does not exist or is inaccessible.", messageCode: "CONT_0001",
                        details: []), for: request)
            }
            return Rendering.resource(item.json, for: request)
        }
    }

    /// `/sharing/rest/portals/self/users[/search]` and `/community/users?q=`: members matching `q`
    /// (username, full name or email), under `users` or (community search) `results`.
    func users(_ request: IncomingRequest, key: String) -> OutgoingResponse {
        signedIn(request) { record in
            let viewer = context.user(named: record.username)
            let terms = SearchTerms(request.parameter("q") ?? "")
            let users = context.configuration.users.filter { terms.matches(user: $0) }
            return page(request, key: key, of: users.map { UserProfile.json($0, viewer: viewer) }, extra: [])
        }
    }

    /// `/sharing/rest/portals/self/roles`: no custom roles (members have the built-in ones).
    func roles(_ request: IncomingRequest) -> OutgoingResponse {
        signedIn(request) { _ in page(request, key: "roles", of: [], extra: []) }
    }

    /// Runs `body` for a signed-in member (or an API key `apiKeys` admits); 499, 498 or 403 otherwise.
    private func signedIn(
        _ request: IncomingRequest, apiKeys: APIKeyAccess = .refused, _ body: (TokenRecord) -> OutgoingResponse
    ) -> OutgoingResponse {
        switch context.requireToken(request, realm: .portal, apiKeys: apiKeys) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let record): return body(record)
        }
    }

    /// One page of `all` under `key`, with `total`, `start`, `num` and `nextStart`.
    private func page(
        _ request: IncomingRequest, key: String, of all: [JSONValue], extra: [(String, JSONValue)]
    ) -> OutgoingResponse {
        let start = max(1, request.parameter("start").flatMap { Int($0) } ?? 1)
        let num = min(100, max(0, request.parameter("num").flatMap { Int($0) } ?? 10))
        let slice = Array(all.dropFirst(start - 1).prefix(num))
        let next = start - 1 + slice.count < all.count ? start + slice.count : -1
        return Rendering.resource(
            .object(
                extra + [
                    ("total", .number(all.count)), ("start", .number(start)), ("num", .number(num)),
                    ("nextStart", .number(next)), (key, .array(slice)),
                ]), for: request)
    }

    /// The Parcels item, its URL as the caller sees the server.
    private func parcelsItem(for request: IncomingRequest) -> PortalItem {
        PortalItem(
            id: Self.parcelsItemID, owner: "alice", title: "Parcels", type: "Feature Service",
            typeKeywords: ["ArcGIS Server", "Data", "Feature Access", "Service", "Hosted Service"],
            tags: ["parcels", "redlands"], snippet: "Emulated parcels around Redlands, California.",
            url: context.urls(for: request).serverURL + "/rest/services/Parcels/FeatureServer")
    }
}

/// A portal item, reduced to what listings show.
struct PortalItem: Sendable {
    var id: String
    var owner: String
    var title: String
    var type: String
    var typeKeywords: [String]
    var tags: [String]
    var snippet: String
    var url: String

    /// The item JSON (`content/items/{id}` and search results).
    var json: JSONValue {
        .object([
            ("id", .string(id)), ("owner", .string(owner)), ("orgId", .string(UserProfile.organizationID)),
            ("created", .int(1_700_000_000_000)), ("modified", .int(1_700_086_400_000)), ("guid", .null),
            ("name", .string(title)), ("title", .string(title)), ("type", .string(type)),
            ("typeKeywords", .array(typeKeywords.map(JSONValue.string))), ("description", .string(snippet)),
            ("tags", .array(tags.map(JSONValue.string))), ("snippet", .string(snippet)), ("thumbnail", .null),
            ("documentation", .null), ("extent", .array([])), ("categories", .array([])),
            ("spatialReference", .string("WGS84")), ("accessInformation", .null), ("licenseInfo", .null),
            ("culture", .string("en-us")), ("properties", .null), ("url", .string(url)), ("proxyFilter", .null),
            ("access", .string("org")), ("size", .number(-1)), ("appCategories", .array([])),
            ("industries", .array([])), ("languages", .array([])), ("largeThumbnail", .null),
            ("banner", .null), ("screenshots", .array([])), ("listed", .bool(false)),
            ("numComments", .number(0)), ("numRatings", .number(0)), ("avgRating", .number(0)),
            ("numViews", .number(0)), ("isOrgItem", .bool(true)),
        ])
    }
}

/// A search `q`, reduced to terms: `field:value` (quotes allowed) and bare words; `AND`/`OR`
/// and parentheses are ignored and every term must match. Unknown fields match everything.
struct SearchTerms: Sendable {
    /// The query as given.
    let text: String
    private var terms: [(field: String?, value: String)] = []

    init(_ text: String) {
        self.text = text
        var current = ""
        var quoted = false
        for character in text + " " {
            if character == "\"" {
                quoted.toggle()
            } else if (character == " " || character == "(" || character == ")") && !quoted {
                add(current)
                current = ""
            } else {
                current.append(character)
            }
        }
    }

    private mutating func add(_ word: String) {
        guard !word.isEmpty, !["and", "or", "not"].contains(word.lowercased()) else { return }
        if let colon = word.firstIndex(of: ":") {
            terms.append((word[..<colon].lowercased(), word[word.index(after: colon)...].lowercased()))
        } else {
            terms.append((nil, word.lowercased()))
        }
    }

    /// True when every term matches the item.
    func matches(item: PortalItem) -> Bool {
        terms.allSatisfy { field, value in
            switch field {
            case nil: return ([item.title, item.snippet] + item.tags).contains { $0.lowercased().contains(value) }
            case "owner": return item.owner.lowercased() == value
            case "title": return item.title.lowercased().contains(value)
            case "type": return item.type.lowercased() == value
            case "id": return item.id == value
            case "orgid", "accountid": return value == UserProfile.organizationID.lowercased()
            case "tags": return item.tags.contains(value)
            case "typekeywords": return item.typeKeywords.contains { $0.lowercased() == value }
            default: return true
            }
        }
    }

    /// True when every term matches the member.
    func matches(user: EmulatorUser) -> Bool {
        terms.allSatisfy { field, value in
            let value = value.replacingOccurrences(of: "*", with: "")
            switch field {
            case nil, "username": return user.username.lowercased().contains(value)
            case "fullname": return user.fullName.lowercased().contains(value)
            case "email": return user.email.lowercased().contains(value)
            case "role": return user.role.lowercased() == value
            case "orgid", "accountid": return value == UserProfile.organizationID.lowercased()
            default: return true
            }
        }
    }
}
