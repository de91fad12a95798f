import Foundation
import NIOConcurrencyHelpers

/// An API key credential a user made at run time: an item of type `API Key` and, once
/// `oauth2/registerApp` ran, its app (client ID, secret, privileges, referrers, both slots' expiry).
struct APIKeyApp: Sendable, Equatable {
    /// The item's ID (32 hex digits).
    var itemID: String
    /// Who owns the item.
    var owner: String
    /// The item's title.
    var title: String
    /// The app's client ID, once registered.
    var clientID: String?
    /// The app's secret, once registered.
    var clientSecret: String?
    /// The key's privileges.
    var privileges: [String] = []
    /// The referrers keys are bound to.
    var httpReferrers: [String] = []
    /// Expiry of keys minted in slot 1 and 2, epoch milliseconds (nil: not set).
    var expirations: [Int: Int64] = [:]
    /// When the app was registered and last changed, epoch milliseconds.
    var registered: Int64 = 0
    var modified: Int64 = 0

    /// The item as listings show it.
    var item: PortalItem {
        PortalItem(
            id: itemID, owner: owner, title: title, type: "API Key", typeKeywords: ["API Key"], tags: [],
            snippet: "", url: "")
    }

    /// `registeredAppInfo` (and `registerApp`, `apps/{id}/update`) as ArcGIS answers them:
    /// with the secret, for its owner only.
    func json(activeSlots: Set<Int>) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("itemId", .string(itemID)), ("client_id", .optional(clientID)),
            ("client_secret", .optional(clientSecret)), ("appType", .string("apikey")),
            ("redirect_uris", .array([])), ("httpReferrers", .array(httpReferrers.map(JSONValue.string))),
            ("privileges", .array(privileges.map(JSONValue.string))), ("registered", .int(registered)),
            ("modified", .int(modified)), ("isBeta", .bool(false)), ("isPersonalAPIToken", .bool(false)),
        ]
        for slot in [1, 2] {
            members.append(("apiToken\(slot)Active", .bool(activeSlots.contains(slot))))
            members.append(("apiToken\(slot)ExpirationDate", .int(expirations[slot] ?? -1)))
        }
        return .object(members)
    }

    /// The privilege a member needs to create API keys (nil privileges grant it).
    static let createPrivilege = "portal:user:createApiKeys"
}

/// The API key credentials made at run time. Thread-safe.
final class APIKeyApps: Sendable {
    private let apps = NIOLockedValueBox<[String: APIKeyApp]>([:])

    /// The most a portal holds (a loop creating keys cannot grow it without bound).
    static let limit = 1_000

    /// Adds a new item for `owner`; nil when the emulator holds ``limit`` already.
    func addItem(owner: String, title: String) -> APIKeyApp? {
        let id = (0..<32).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
        let app = APIKeyApp(itemID: id, owner: owner, title: title)
        return apps.withLockedValue { apps in
            guard apps.count < Self.limit else { return nil }
            apps[id] = app
            return app
        }
    }

    /// The item `id`, if any.
    func app(itemID id: String) -> APIKeyApp? { apps.withLockedValue { $0[id.lowercased()] } }

    /// The registered app with this client ID, if any.
    func app(clientID: String) -> APIKeyApp? {
        apps.withLockedValue { $0.values.first { $0.clientID == clientID } }
    }

    /// Every item, by ID.
    var all: [APIKeyApp] { apps.withLockedValue { $0.values.sorted { $0.itemID < $1.itemID } } }

    /// Changes the item `id` with `change`; returns it changed, nil when there is none.
    func update(itemID id: String, _ change: (inout APIKeyApp) -> Void) -> APIKeyApp? {
        apps.withLockedValue { apps in
            guard var app = apps[id.lowercased()] else { return nil }
            change(&app)
            apps[app.itemID] = app
            return app
        }
    }
}
