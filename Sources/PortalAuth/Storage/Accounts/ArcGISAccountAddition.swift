#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``ArcGISCredentialStore/addAccount(_:)`` did with a credential.
public enum ArcGISAccountAddition: Sendable, Equatable {
    /// It is the context's active credential (the first account, or the active user's again).
    case active
    /// It was kept as an inactive account; `activeUser` stays active.
    case inactive(activeUser: String)

    /// Where a new credential of `username` goes when `activeUser` is the context's active user
    /// (`nil`: none): the active place unless both users are known and differ.
    package static func decide(username: String?, activeUser: String?) -> Self {
        // (The commit's own decision, for a sign-in: ``CredentialCommit``.)
        let decision = CredentialCommit.decide(
            new: .init(username: username, kind: ""), origin: .signIn,
            active: activeUser.map { .init(username: $0, kind: "") })
        guard case .inactive = decision.place, let activeUser else { return .active }
        return .inactive(activeUser: activeUser)
    }
}
