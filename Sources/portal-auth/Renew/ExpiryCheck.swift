import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `status --check`: the stored credentials that stop working within a window and cannot renew
/// themselves, so that someone has to sign in again. Each credential answers for itself
/// (``CredentialSummary/renewal``): one that renews itself without end (an app with its secret),
/// follows its portal's (a federated server token) or never expires is not listed; a password
/// sign-in counts unless the manager says it renews unattended (a remembered password).
struct ExpiryCheck: Sendable {
    /// A credential that stops working within the window (or has).
    struct Lapse: Sendable {
        let summary: CredentialSummary
        let expires: Date
    }

    /// The credentials of `summaries` that stop working before `deadline`, soonest first.
    static func lapses(
        in summaries: [CredentialSummary], before deadline: Date, manager: AuthenticationManager
    ) async throws -> [Lapse] {
        var lapses: [Lapse] = []
        for summary in summaries {
            guard let expires = try await lapse(of: summary, manager: manager), expires < deadline else { continue }
            lapses.append(Lapse(summary: summary, expires: expires))
        }
        return lapses.sorted { $0.expires < $1.expires }
    }

    /// When the credential `summary` names stops working for good, as it answers
    /// (``CredentialRenewal/lapse(tokenExpires:signsInUnattended:)``), with the manager's answer to
    /// whether it renews unattended; nil for an unreadable item.
    static func lapse(of summary: CredentialSummary, manager: AuthenticationManager) async throws -> Date? {
        guard let renewal = summary.renewal else { return nil }
        var unattended = false
        if renewal == .needsUnattendedSignIn { unattended = try await manager.signsInUnattended(for: summary) }
        return renewal.lapse(tokenExpires: summary.expirationDate, signsInUnattended: unattended)
    }

    /// One line on stderr for a lapse: kind, server, user, when.
    static func line(_ lapse: Lapse, now: Date) -> String {
        let user = lapse.summary.username.map { " as \($0)" } ?? ""
        let when = lapse.expires < now ? "expired \(lapse.expires.iso8601)" : "expires \(lapse.expires.iso8601)"
        return "\(lapse.summary.kind) for \(APIKeyLogin.portalServer(lapse.summary))\(user) \(when)"
    }

    /// The JSON `status --check --json` prints.
    static func json(_ lapses: [Lapse], within: DurationArgument, now: Date) -> JSONValue {
        .object([
            "checked": .string(now.iso8601), "within": .string(within.text),
            "withinSeconds": .number(Double(within.seconds)),
            "expiring": .array(
                lapses.map { lapse in
                    .object([
                        "kind": .string(lapse.summary.kind), "server": .string(APIKeyLogin.portalServer(lapse.summary)),
                        "username": lapse.summary.username.map(JSONValue.string) ?? .null,
                        "expires": .string(lapse.expires.iso8601), "expired": .bool(lapse.expires < now),
                        "store": .string(lapse.summary.store), "backend": .string(lapse.summary.backend),
                    ])
                }),
        ])
    }
}
