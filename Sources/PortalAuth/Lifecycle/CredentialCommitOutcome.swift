/// What ``CredentialStore/commit(_:origin:)`` did with a credential.
public enum CredentialCommitOutcome: Sendable, Equatable {
    /// It is the active credential of its scope.
    case stored
    /// It was kept as an inactive account of its server context; `activeUser` stays active.
    case storedAsInactiveAccount(activeUser: String)
    /// It was not stored: the account it was obtained for is no longer the portal's (another
    /// principal signed in, the accounts were switched, or it was signed out meanwhile).
    case notStored
}
