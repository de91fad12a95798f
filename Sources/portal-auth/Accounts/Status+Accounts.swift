import PortalAuth

/// `status` of portals with several accounts: the inactive ones are listed beside the active one,
/// which is marked.
extension Status {
    /// The inactive accounts' credentials (and the federated server tokens derived from them).
    static func inactiveSummaries(_ manager: AuthenticationManager) async throws -> [CredentialSummary] {
        let store = manager.arcGISCredentialStore
        let users = Set(
            try await store.inactiveAccountItems(server: nil, username: nil).compactMap(\.attributes.username))
        var summaries: [CredentialSummary] = []
        for user in users.sorted() { summaries += try await store.accountStore(username: user).summaries() }
        return summaries
    }

    /// Each summary with whether it is its portal's active account (`true`), an inactive one
    /// (`false`), or no account of a portal with several (`nil`), sorted by server, then kind.
    static func marked(
        _ summaries: [CredentialSummary], inactive: [CredentialSummary]
    ) -> [(summary: CredentialSummary, active: Bool?)] {
        let shared = Set(inactive.filter { $0.kind != FederatedTokenCredential.kind }.map(\.server))
        let isAccount = { (s: CredentialSummary) -> Bool in
            s.store == ArcGISCredentialStore.storeName && shared.contains(s.server)
        }
        var all: [(summary: CredentialSummary, active: Bool?)] = summaries.map { ($0, isAccount($0) ? true : nil) }
        all += inactive.map { ($0, false) }
        return all.sorted { a, b in sortKey(a.summary, a.active).lexicographicallyPrecedes(sortKey(b.summary, b.active))
        }
    }

    private static func sortKey(_ s: CredentialSummary, _ active: Bool?) -> [String] {
        [s.server, s.kind, active == false ? "1" : "0", s.username ?? ""]
    }

    /// The USER column: the user, and `(active)` where the portal has several accounts.
    static func userColumn(_ summary: CredentialSummary, active: Bool?) -> String {
        (summary.username ?? "-") + (active == true ? " (active)" : "")
    }
}
