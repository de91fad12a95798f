/// The REST side of API key credentials, as arcgis-rest-js's `arcgis-rest-developer-credentials`
/// calls it: `oauth2/revokeToken` with `apiToken` (`invalidateApiKey`) and `oauth2/token` with
/// `apiToken` and `regenerateApiToken` (`generateApiKeyToken`), both authenticated by the developer
/// credential's `client_id` and `client_secret`.
extension OAuthTokenService {
    /// `oauth2/revokeToken` with `apiToken`: invalidates the key in that slot (1 or 2, or the full
    /// key) of the credential `client_id`; `{"success":true}`.
    func revokeAPIKey(_ request: IncomingRequest) -> OutgoingResponse {
        let clientID: String
        switch developerCredential(request) {
        case .failure(let error): return .json(error.json)
        case .success(let app): clientID = app.clientId
        }
        let value = request.parameter("apitoken") ?? ""
        if let slot = Int(value), slot == 1 || slot == 2 {
            context.apiKeys.invalidate(clientID: clientID, slot: slot)
        } else if let record = context.apiKeys.record(for: value), record.key.clientId == clientID {
            context.apiKeys.invalidate(key: value)
        } else {
            return .json(OAuthError.invalidRequest("apiToken must be 1, 2 or one of this application's keys").json)
        }
        context.counters.update { $0.apiKeyInvalidations += 1 }
        return .json(.object([("success", .bool(true))]))
    }

    /// `oauth2/token` (client_credentials) with `apiToken` 1 or 2: a new key in that slot, the
    /// old one there invalidated; `{"access_token":"AAPT…","expires_in":SECONDS}`.
    func regenerateAPIKey(_ request: IncomingRequest) -> Result<JSONValue, OAuthError> {
        let app: EmulatorApp
        switch developerCredential(request) {
        case .failure(let error): return .failure(error)
        case .success(let found): app = found
        }
        guard let slot = request.parameter("apitoken").flatMap(Int.init), slot == 1 || slot == 2 else {
            return .failure(.invalidRequest("apiToken must be 1 or 2"))
        }
        let record = context.apiKeys.regenerate(
            clientID: app.clientId, slot: slot, template: context.apiKeyApps.app(clientID: app.clientId))
        context.counters.update { $0.apiKeyRegenerations += 1 }
        let seconds = max(0, (record.expires - context.nowMilliseconds) / 1000)
        return .success(.object([("access_token", .string(record.key.key)), ("expires_in", .int(seconds))]))
    }

    /// The app named by `client_id` when `client_secret` is its secret.
    private func developerCredential(_ request: IncomingRequest) -> Result<EmulatorApp, OAuthError> {
        guard let clientID = request.parameter("client_id"), let app = context.app(clientID: clientID) else {
            return .failure(.invalidClientID)
        }
        guard let secret = app.clientSecret, request.parameter("client_secret") == secret else {
            return .failure(
                OAuthError(code: 400, error: "invalid_client", description: "Invalid client_id or client_secret"))
        }
        return .success(app)
    }
}
