#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension APIKeyAdministration {
    /// What a new API key credential is made with.
    public struct NewKey: Sendable, Equatable {
        /// The item's title.
        public var title: String
        /// The key's privileges (`premium:user:geocode`, …); at least one.
        public var privileges: [String]
        /// The referrers the key is bound to; empty for none.
        public var httpReferrers: [String]
        /// When keys minted in either slot expire (ArcGIS allows one day to one year).
        public var expirationDate: Date
        /// Extra hosts the stored key may be sent to (see ``APIKeyCredential``).
        public var hosts: [String]

        /// A new key's description.
        public init(
            title: String, privileges: [String], httpReferrers: [String] = [], expirationDate: Date,
            hosts: [String] = []
        ) {
            self.title = title
            self.privileges = privileges
            self.httpReferrers = httpReferrers
            self.expirationDate = expirationDate
            self.hosts = hosts
        }
    }

    /// Creates an API key credential as arcgis-rest-js's `createApiKey` does (an item of type `API
    /// Key`, `oauth2/registerApp` with `appType=apikey`, `oauth2/apps/{client_id}/update` for both
    /// slots' expiry), mints the key in slot 1, checks it on the portal and stores it at once
    /// (``CredentialStore/commit(_:origin:)``), scoped as ``APIKeyCredential/credential(apiKey:portalURL:expirationDate:hosts:services:)``
    /// scopes a key. Replaces the portal's stored API key.
    ///
    /// - Throws: ``PortalAuthError/Code/invalidArgument`` for no privilege, an empty title or an
    ///   expiry outside one day to one year; the portal's error (a user without the privilege to
    ///   create API keys gets its 403).
    @discardableResult
    public func create(_ new: NewKey) async throws -> (info: APIKeyInfo, credential: APIKeyCredential) {
        try Self.check(new, now: Date())
        let user = try await username()
        let item = try await post(
            rest + "/content/users/\(FormEncoding.escape(user))/addItem",
            [("title", new.title), ("type", "API Key"), ("tags", "portal-auth")])
        guard let itemID = item["id"]?.stringValue, Self.isItemID(itemID) else {
            throw PortalAuthError(.invalidResponse, "\(portal) made no item for the API key", remedy: .retryLater)
        }
        let app = try await post(
            rest + "/oauth2/registerApp",
            [
                ("itemId", itemID), ("appType", "apikey"), ("redirect_uris", "[]"),
                ("httpReferrers", Self.jsonArray(new.httpReferrers)), ("privileges", Self.jsonArray(new.privileges)),
            ])
        guard let clientID = app["client_id"]?.stringValue, !clientID.isEmpty else {
            throw PortalAuthError(.invalidResponse, "\(portal) registered no app for the API key", remedy: .retryLater)
        }
        try await setExpiration(clientID: clientID, new, slots: APIKeySlot.allCases)
        let minted = try await mint(itemID: itemID, slot: .one)
        let credential = try await storableCredential(
            minted, itemID: itemID, expiration: new.expirationDate, hosts: new.hosts)
        try await manager.arcGISCredentialStore.commit(credential, origin: .signIn)
        return (try await info(itemID: itemID, title: new.title), credential)
    }

    /// Sets the expiry of keys minted in `slots` (`oauth2/apps/{client_id}/update`, which takes
    /// the app's type, referrers and privileges beside them).
    func setExpiration(clientID: String, _ new: NewKey, slots: [APIKeySlot]) async throws {
        let milliseconds = String(Int64((new.expirationDate.timeIntervalSince1970 * 1000).rounded()))
        var parameters = [
            ("appType", "apikey"), ("httpReferrers", Self.jsonArray(new.httpReferrers)),
            ("privileges", Self.jsonArray(new.privileges)),
        ]
        for slot in slots { parameters.append(("apiToken\(slot)ExpirationDate", milliseconds)) }
        let path = "/oauth2/apps/\(FormEncoding.escape(clientID))/update"
        _ = try await post(rest + path, parameters)
    }

    /// The credential of a minted key: checked on the portal (which also lists the key's
    /// services), with its item.
    func storableCredential(
        _ minted: TokenInfo, itemID: String, expiration: Date?, hosts: [String]
    ) async throws -> APIKeyCredential {
        var credential = try await APIKeyCredential.credential(
            apiKey: minted.accessToken, portalURL: URL(string: portal.url)!,
            expirationDate: minted.expirationDate ?? expiration, hosts: hosts, services: manager.services)
        credential.itemID = itemID
        return credential
    }

    /// The checks of a new key's description.
    static func check(_ new: NewKey, now: Date) throws {
        guard new.title.contains(where: { !$0.isWhitespace }) else {
            throw PortalAuthError(.invalidArgument, "an API key needs a title", remedy: .none)
        }
        guard !new.privileges.isEmpty, new.privileges.allSatisfy({ !$0.isEmpty && $0.contains(":") }) else {
            throw PortalAuthError(
                .invalidArgument, "an API key needs at least one privilege (such as premium:user:geocode)",
                remedy: .none)
        }
        try checkLifetime(new.expirationDate, now: now)
    }

    /// ArcGIS keys last one day to one year.
    static func checkLifetime(_ expiration: Date, now: Date) throws {
        let seconds = expiration.timeIntervalSince(now)
        guard seconds >= 86_400 - 60, seconds <= 366 * 86_400 else {
            throw PortalAuthError(
                .invalidArgument, "an API key lasts from one day to one year; \(expiration.formatted(.iso8601)) is not",
                remedy: .none)
        }
    }

    /// A JSON array of strings, as `registerApp` reads its list parameters.
    static func jsonArray(_ items: [String]) -> String {
        (try? JSONValue.array(items.map(JSONValue.string)).jsonText(pretty: false)) ?? "[]"
    }
}
