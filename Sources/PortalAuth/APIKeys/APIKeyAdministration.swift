#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The life of a user's API keys on a portal, as the signed-in user: create a key, list the user's
/// keys, mint or revoke a slot's key, and rotate a stored key without downtime.
///
/// Requests about the keys go with the user's credential, as any request the manager sends (the
/// user needs the privilege to create API keys). Minting and revoking go with the app's
/// `client_id` and `client_secret`, read from `registeredAppInfo` for that one request and then
/// dropped: the secret is never stored, logged or put in an error (a machine that rotates a key
/// later reads it again, signed in as the user).
public struct APIKeyAdministration: Sendable {
    /// The manager whose credentials the requests use.
    public let manager: AuthenticationManager
    /// The portal.
    public let portal: ServerContext

    /// The keys of the portal at `portalURL` (https).
    ///
    /// - Throws: ``PortalAuthError/Code/insecureTransport`` for an http portal,
    ///   ``PortalAuthError/Code/invalidURL`` for one that cannot be read.
    public init(manager: AuthenticationManager, portalURL: URL) throws {
        self.manager = manager
        portal = try APIKeyCredential.httpsContext(portalURL, what: "the portal", path: nil)
    }

    var rest: String { portal.portalRESTURL }

    /// The signed-in user's name (`community/self`).
    public func username() async throws -> String {
        let json = try await get(rest + "/community/self")
        guard let name = json["username"]?.stringValue, !name.isEmpty else {
            throw PortalAuthError(
                .invalidResponse, "\(portal) did not say who is signed in (community/self has no username)",
                remedy: .signIn(.token(portal)))
        }
        return name
    }

    /// What the portal says of the API key credential `itemID` (its secret is not kept).
    public func info(itemID: String, title: String? = nil) async throws -> APIKeyInfo {
        let json = try await registeredAppInfo(itemID: itemID)
        guard let info = APIKeyInfo(registeredAppInfo: json, title: title) else {
            throw PortalAuthError(
                .invalidArgument, "item \(itemID) on \(portal) is not an API key credential", remedy: .none)
        }
        return info
    }

    /// The signed-in user's API key credentials: the items of type `API Key` they own (the first
    /// 1,000), each with its app's slots.
    public func list() async throws -> [APIKeyInfo] {
        let user = try await username()
        var keys: [APIKeyInfo] = []
        var start = 1
        for _ in 0..<10 {
            let query = "owner:\"\(user)\" AND type:\"API Key\""
            let page = try await get(
                rest + "/search", [("q", query), ("num", "100"), ("start", String(start)), ("sortField", "title")])
            guard case .array(let results)? = page["results"] else { break }
            for item in results {
                guard let id = item["id"]?.stringValue, Self.isItemID(id) else { continue }
                if let info = try? await info(itemID: id, title: item["title"]?.stringValue) { keys.append(info) }
            }
            guard let next = page["nextStart"]?.doubleValue, next > Double(start), !results.isEmpty else { break }
            start = Int(next)
        }
        return keys
    }

    /// Mints a new key in `slot` of `itemID` (`oauth2/token`, `regenerateApiToken=true`): the slot's
    /// previous key stops working. The key is returned, not stored.
    public func mint(itemID: String, slot: APIKeySlot) async throws -> TokenInfo {
        let json = try await withClient(itemID: itemID) { clientID, secret in
            try await manager.services.postForm(
                URL(string: rest + "/oauth2/token")!, Self.slotParameters(clientID, secret, slot))
        }
        guard let token = json["access_token"]?.stringValue, TokenInfo.isUsableToken(token) else {
            throw PortalAuthError(
                .invalidResponse, "\(portal) answered a new API key without a key (no access_token)",
                remedy: .retryLater)
        }
        let seconds = json["expires_in"]?.doubleValue
        return TokenInfo(
            accessToken: token, expirationDate: seconds.map { Date().addingTimeInterval($0) }, isSSLRequired: true)
    }

    /// Revokes the key in `slot` of `itemID` (`oauth2/revokeToken`): it stops working at once.
    public func revoke(itemID: String, slot: APIKeySlot) async throws {
        let json = try await withClient(itemID: itemID) { clientID, secret in
            try await manager.services.postForm(
                URL(string: rest + "/oauth2/revokeToken")!, Self.slotParameters(clientID, secret, slot))
        }
        guard json["success"]?.boolValue == true else {
            throw PortalAuthError(
                .invalidResponse, "\(portal) did not confirm that slot \(slot) of \(itemID) was revoked",
                remedy: .retryLater)
        }
    }

    /// `registeredAppInfo`'s answer (with the secret: internal only).
    func registeredAppInfo(itemID: String) async throws -> JSONValue {
        guard Self.isItemID(itemID) else {
            throw PortalAuthError(.invalidArgument, "'\(itemID)' is not an item ID", remedy: .none)
        }
        let user = try await username()
        let path = "/content/users/\(FormEncoding.escape(user))/items/\(itemID)/registeredAppInfo"
        return try await post(rest + path, [])
    }

    /// Runs `body` with the app's client ID and secret, which live no longer than the call.
    func withClient<T>(
        itemID: String, _ body: (String, String) async throws -> T
    ) async throws -> T {
        let json = try await registeredAppInfo(itemID: itemID)
        guard json["appType"]?.stringValue == "apikey", let clientID = json["client_id"]?.stringValue,
            let secret = json["client_secret"]?.stringValue, !secret.isEmpty
        else {
            throw PortalAuthError(
                .invalidArgument, "item \(itemID) on \(portal) is not an API key credential you own", remedy: .none)
        }
        return try await body(clientID, secret)
    }

    static func slotParameters(_ clientID: String, _ secret: String, _ slot: APIKeySlot) -> [(String, String)] {
        [
            ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret),
            ("apiToken", slot.description), ("regenerateApiToken", "true"),
        ]
    }

    /// An item ID: 32 hexadecimal digits (what ArcGIS issues), so it can go in a path as it is.
    static func isItemID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    func get(_ url: String, _ parameters: [(String, String)] = []) async throws -> JSONValue {
        try await send(url, parameters, method: .get)
    }

    func post(_ url: String, _ parameters: [(String, String)]) async throws -> JSONValue {
        try await send(url, parameters, method: .post)
    }

    private func send(
        _ url: String, _ parameters: [(String, String)], method: ArcGISRequest.Method
    ) async throws -> JSONValue {
        let response = try await manager.send(
            ArcGISRequest(url: URL(string: url)!, parameters: parameters, method: method))
        guard let json = response.json else {
            throw PortalAuthError(.invalidResponse, "\(portal) answered without JSON", remedy: .retryLater)
        }
        return json
    }
}
