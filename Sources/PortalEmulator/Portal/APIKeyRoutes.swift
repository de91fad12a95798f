import Foundation

/// Making API key credentials, as arcgis-rest-js's `createApiKey`, `updateApiKey` and
/// `getApiKey` call the portal: `content/users/{u}/addItem` (type `API Key`),
/// `oauth2/registerApp` (`appType=apikey`), `oauth2/apps/{client_id}/update` and
/// `content/users/{u}/items/{id}/registeredAppInfo`. Each needs the owner's own user token; making
/// one needs the privilege to create API keys (403 otherwise). Minting and revoking a slot's key
/// are ``OAuthTokenService``'s (`oauth2/token`, `oauth2/revokeToken` with `apiToken`).
struct APIKeyRoutes: Sendable {
    let context: EmulatorContext

    /// `content/users/{user}/addItem` with `type=API Key` and a `title`.
    func addItem(_ request: IncomingRequest, user: String) -> OutgoingResponse {
        owner(request, user: user, creating: true) { owner in
            guard request.parameter("type")?.lowercased() == "api key" else {
                return error(400, "Item type not supported here: the emulator makes items of type API Key only.")
            }
            guard let title = request.parameter("title"), title.count <= 250 else {
                return error(400, "Item title is required (250 characters at most).")
            }
            guard let app = context.apiKeyApps.addItem(owner: owner, title: title) else {
                return error(400, "Too many items.")
            }
            return Rendering.resource(
                .object([("success", .bool(true)), ("id", .string(app.itemID)), ("folder", .string(""))]),
                for: request)
        }
    }

    /// `oauth2/registerApp` with `itemId` and `appType=apikey`: the app, with its secret.
    func registerApp(_ request: IncomingRequest) -> OutgoingResponse {
        signedIn(request) { username in
            guard let itemID = request.parameter("itemId"), let app = context.apiKeyApps.app(itemID: itemID),
                app.owner.lowercased() == username.lowercased()
            else { return error(400, "Item does not exist or is inaccessible.", messageCode: "CONT_0001") }
            guard mayCreate(username) else { return Rendering.error(.noPermission, for: request) }
            guard request.parameter("appType") == "apikey" else {
                return error(400, "Invalid appType: the emulator registers apikey apps only.")
            }
            guard app.clientID == nil else { return error(400, "The item is already registered as an app.") }
            guard let privileges = strings(request, "privileges"), let referrers = strings(request, "httpReferrers")
            else { return error(400, "privileges and httpReferrers must be JSON arrays of strings.") }
            let now = context.nowMilliseconds
            let registered = context.apiKeyApps.update(itemID: itemID) { app in
                app.clientID = String(TokenStore.randomToken().filter { $0.isLetter || $0.isNumber }.prefix(16))
                app.clientSecret = String(TokenStore.randomToken().filter { $0.isLetter || $0.isNumber }.prefix(32))
                app.privileges = privileges
                app.httpReferrers = referrers
                app.registered = now
                app.modified = now
            }
            return answer(registered, request)
        }
    }

    /// `oauth2/apps/{client_id}/update`: privileges, referrers and the slots' expiry
    /// (`apiToken1ExpirationDate`, `apiToken2ExpirationDate`: epoch milliseconds, -1 for none).
    func updateApp(_ request: IncomingRequest, clientID: String) -> OutgoingResponse {
        signedIn(request) { username in
            guard let app = context.apiKeyApps.app(clientID: clientID), app.owner.lowercased() == username.lowercased()
            else { return error(400, "Invalid client_id", messageCode: "OAUTH_0007") }
            var expirations = app.expirations
            for slot in [1, 2] {
                guard let text = request.parameter("apiToken\(slot)ExpirationDate") else { continue }
                guard let milliseconds = Int64(text) else {
                    return error(400, "apiToken\(slot)ExpirationDate must be epoch milliseconds or -1.")
                }
                let days = Double(milliseconds - context.nowMilliseconds) / 86_400_000
                if milliseconds == -1 {
                    expirations[slot] = nil
                } else if days < 0.99 || days > 366 {
                    return error(400, "An API key expires one day to one year from now.")
                } else {
                    expirations[slot] = milliseconds
                }
            }
            // (Left as they are when not sent.)
            let privileges = request.parameter("privileges") == nil ? nil : strings(request, "privileges")
            let referrers = request.parameter("httpReferrers") == nil ? nil : strings(request, "httpReferrers")
            let now = context.nowMilliseconds
            let updated = context.apiKeyApps.update(itemID: app.itemID) { app in
                app.expirations = expirations
                if let privileges { app.privileges = privileges }
                if let referrers { app.httpReferrers = referrers }
                app.modified = now
            }
            return answer(updated, request)
        }
    }

    /// `content/users/{user}/items/{id}/registeredAppInfo`: the app, with its secret, for its owner.
    func registeredAppInfo(_ request: IncomingRequest, user: String, itemID: String) -> OutgoingResponse {
        owner(request, user: user, creating: false) { owner in
            guard let app = context.apiKeyApps.app(itemID: itemID), app.owner.lowercased() == owner.lowercased(),
                app.clientID != nil
            else { return error(400, "Item does not exist or is inaccessible.", messageCode: "CONT_0001") }
            return answer(app, request)
        }
    }

    private func answer(_ app: APIKeyApp?, _ request: IncomingRequest) -> OutgoingResponse {
        guard let app else { return error(400, "Item does not exist or is inaccessible.", messageCode: "CONT_0001") }
        let active = Set([1, 2].filter { context.apiKeys.hasLiveKey(clientID: app.clientID ?? "", slot: $0) })
        return Rendering.resource(app.json(activeSlots: active), for: request)
    }

    /// Runs `body` for the member whose user token the request carries (API keys are refused: 403).
    private func signedIn(_ request: IncomingRequest, _ body: (String) -> OutgoingResponse) -> OutgoingResponse {
        switch context.requireToken(request, realm: .portal) {
        case .failure(let error): return Rendering.error(error, for: request)
        case .success(let record): return body(record.username)
        }
    }

    /// Runs `body` when the signed-in member is `user` (and, `creating`, may create API keys).
    private func owner(
        _ request: IncomingRequest, user: String, creating: Bool, _ body: (String) -> OutgoingResponse
    ) -> OutgoingResponse {
        signedIn(request) { username in
            guard username.lowercased() == user.lowercased(), !creating || mayCreate(username) else {
                return Rendering.error(.noPermission, for: request)
            }
            return body(username)
        }
    }

    private func mayCreate(_ username: String) -> Bool {
        guard let user = context.user(named: username) else { return false }
        return user.privileges.map { $0.contains(APIKeyApp.createPrivilege) } ?? true
    }

    private func strings(_ request: IncomingRequest, _ name: String) -> [String]? {
        guard let text = request.parameter(name) else { return [] }
        guard text.utf8.count <= 16_384 else { return nil }
        return try? JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    private func error(_ code: Int, _ message: String, messageCode: String? = nil) -> OutgoingResponse {
        .json(ArcGISError(code: code, message: message, messageCode: messageCode).json)
    }
}
