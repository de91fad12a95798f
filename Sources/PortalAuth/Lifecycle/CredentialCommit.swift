/// The commit decision: what ``CredentialStore/commit(_:origin:)`` does with a new ArcGIS
/// credential of a server context, from who it is, where it came from and who is active there.
/// No I/O: `Tests/PortalAuthUnitTests/LifecycleStateTests.swift` holds its table.
package struct CredentialCommit: Equatable, Sendable {
    /// Who a credential is: its user (`nil`: a principal without a name, such as an app or a
    /// pregenerated token) and its kind.
    package struct Principal: Equatable, Sendable {
        /// The user, when the credential names one.
        package var username: String?
        /// The credential's kind (``StoredCredential/kind``).
        package var kind: String

        /// Creates a principal.
        package init(username: String?, kind: String) {
            self.username = username
            self.kind = kind
        }

        /// Whether `other` is the same principal: both name the same user. Principals without a
        /// name are never the same as another (two apps, or two pregenerated tokens, cannot be
        /// told apart), except for a renewal (see ``CredentialCommit/decide(new:origin:active:)``).
        package func isSame(as other: Principal) -> Bool { username != nil && username == other.username }
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
    ///   - new: the new credential's principal (for a federated server token: the portal account
    ///     it was issued for).
    ///   - origin: where it came from.
    ///   - active: the principal of the server context's active credential (for a federated
    ///     server token: the portal's), `nil` when there is none.
    package static func decide(new: Principal, origin: CredentialOrigin, active: Principal?) -> Self {
        switch origin {
        case .federation:
            // Issued for the account active on the portal when it was asked; kept only if it
            // still is (nil users: the portal's own app or token, compared as they are).
            guard let active else { return Self(place: .active, removesDerivedTokens: false) }
            return Self(place: new.username == active.username ? .active : .nowhere, removesDerivedTokens: false)
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
