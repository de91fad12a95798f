/// Which token service issued a token, and so where it is valid.
public enum TokenKind: String, Codable, Sendable, CaseIterable {
    /// From the portal's generateToken with a username and password: valid on the portal.
    case portal
    /// From the portal's generateToken with `token` + `serverUrl`: valid on the federated server.
    case server
    /// From the standalone server's own `tokens/generateToken`: valid only there.
    case standalone
    /// An OAuth 2.0 access token for a signed-in user (`oauth2/token` with
    /// authorization_code, refresh_token or exchange_refresh_token): valid on the portal,
    /// and exchangeable for a federated server token like a portal token.
    case oauth
    /// An OAuth 2.0 application token (`client_credentials`): valid on the portal.
    case app
    /// An API key access token (`AAPT…`/`AAPK…`) from the configuration's `apiKeys`: valid where its
    /// privileges reach (the portal's items, the federated feature service, the location services).
    case apiKey
}
