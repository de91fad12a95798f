/// The commit decision: what ``CredentialStore/commit(_:origin:)`` does with a new ArcGIS
/// credential of a server context, from who it is, where it came from and who is active there.
/// No I/O: `Tests/PortalAuthUnitTests/LifecycleStateTests.swift` holds its table.
package struct CredentialCommit: Equatable, Sendable {
    /// Who a credential is: its user, or for a principal without a name (an app, a pregenerated
    /// token) its kind and what tells it apart.
    ///
    /// The identity survives a renewal of the portal's token: a named principal is its user (of any
    /// kind: alice by password and alice by OAuth are one user); an app is its kind and client ID;
    /// a principal with neither (a pregenerated token, which never renews) is its kind and the
    /// SHA-256 digest of its token (never the token itself).
    package struct Principal: Equatable, Sendable {
        /// The user, when the credential names one.
        package var username: String?
        /// The credential's kind (``StoredCredential/kind``).
        package var kind: String
        /// For a principal without a name: its kind and client ID or token digest
        /// (``CredentialCommit/identity(kind:clientID:token:)``); `nil` when nothing tells it apart.
        package var id: String?

        /// Creates a principal.
        package init(username: String?, kind: String, id: String? = nil) {
            self.username = username
            self.kind = kind
            self.id = id
        }

        /// Whether `other` is the same principal: both name the same user, or neither names one
        /// and both have the same ``id``. Principals without a name and without an id are never
        /// the same as another (except for a renewal, see ``CredentialCommit/decide(new:origin:active:)``).
        package func isSame(as other: Principal) -> Bool {
            if username != nil || other.username != nil { return username != nil && username == other.username }
            return id != nil && id == other.id
        }
    }

    /// The ``Principal/id`` of a principal without a name: `kind` with its client ID, or else with
    /// the SHA-256 digest (hex) of its `token`; `nil` when the digest cannot be computed.
    package static func identity(kind: String, clientID: String?, token: String) -> String? {
        if let clientID { return "\(kind) client \(clientID)" }
        guard let digest = try? PortalAuthCrypto.sha256(Array(token.utf8)) else { return nil }
        return "\(kind) sha256 \(PortalAuthCrypto.hex(digest))"
    }

    /// Where the credential goes.
    package enum Place: Equatable, Sendable {
        /// The server context's active credential (replacing the one there).
        case active
        /// `username`'s inactive account; the active one stays.
        case inactive(username: String)
        /// Nowhere: the principal it was obtained for is not the context's any more.
        case nowhere
    }

    /// Where the credential goes.
    package var place: Place
    /// Whether the federated server tokens derived from the credential it replaces go first: a
    /// new principal never finds the former one's server tokens.
    package var removesDerivedTokens: Bool

    /// The decision.
    ///
    /// - Parameters:
    ///   - new: the new credential's principal (for a federated server token: the portal principal
    ///     it was issued for, ``FederatedTokenCredential/portalPrincipal``).
    ///   - origin: where it came from.
    ///   - active: the principal of the server context's active credential (for a federated
    ///     server token: the portal's), `nil` when there is none.
    package static func decide(new: Principal, origin: CredentialOrigin, active: Principal?) -> Self {
        switch origin {
        case .federation:
            // Issued for the principal active on the portal when it was asked; kept only if it
            // still is (`new` is that principal). Signed out meanwhile: not kept.
            guard let active else { return Self(place: .nowhere, removesDerivedTokens: false) }
            return Self(place: new.isSame(as: active) ? .active : .nowhere, removesDerivedTokens: false)
        case .renewal:
            // Signed out meanwhile: not brought back.
            guard let active else { return Self(place: .nowhere, removesDerivedTokens: false) }
            if new.isSame(as: active) || (new.username == nil && active.username == nil && new.kind == active.kind) {
                return Self(place: .active, removesDerivedTokens: false)
            }
            // Its account was switched away meanwhile: it is renewed where it lives now.
            guard let username = new.username else { return Self(place: .nowhere, removesDerivedTokens: false) }
            return Self(place: .inactive(username: username), removesDerivedTokens: false)
        case .signIn:
            if let username = new.username, let activeUser = active?.username, username != activeUser {
                return Self(place: .inactive(username: username), removesDerivedTokens: false)
            }
            return Self(place: .active, removesDerivedTokens: !(active.map(new.isSame) ?? false))
        case .replacement:
            return Self(place: .active, removesDerivedTokens: !(active.map(new.isSame) ?? false))
        }
    }

    /// Whether a network credential a request carried enters the store after the server's
    /// answer: only once the server `accepted` it, and a credential being signed in with
    /// (`registering`, ``AuthenticationManager/signIn(with:verifying:)``) only when the whole
    /// request `succeeded` (a certificate the handshake took but whose request failed is not a
    /// sign-in). The user's own Kerberos ticket picked up for a request is never stored.
    package static func storesNetworkCredential(
        registering: Bool, usersOwnTicket: Bool, accepted: Bool, succeeded: Bool
    ) -> Bool {
        guard accepted else { return false }
        if registering { return succeeded }
        return !usersOwnTicket
    }
}
