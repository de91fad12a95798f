/// Which token service issued a token, and so where it is valid.
public enum TokenKind: String, Codable, Sendable, CaseIterable {
    /// From the portal's generateToken with a username and password: valid on the portal.
    case portal
    /// From the portal's generateToken with `token` + `serverUrl`: valid on the federated server.
    case server
    /// From the standalone server's own `tokens/generateToken`: valid only there.
    case standalone
}
