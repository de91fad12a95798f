import PortalAuth
import PortalAuthCertificate
import PortalAuthOAuthUser
import PortalAuthPregeneratedToken
import PortalAuthToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `status --check`: the stored credentials that stop working within a window and cannot renew
/// themselves, so that someone has to sign in again.
struct ExpiryCheck: Sendable {
    /// Where a kind's lasting expiry is read.
    enum Source: Sendable {
        /// The stored expiry (the token's or key's own).
        case summary
        /// The refresh token's: the access token renews itself until the refresh token expires.
        case refreshToken
        /// The certificate's end of validity.
        case certificate
        /// A password sign-in's token: it renews unattended only with a remembered password, so
        /// without one it lapses with the token.
        case passwordToken
    }

    /// The kinds that may not renew themselves unattended, and where their expiry is read. A kind
    /// not listed renews itself (an app with its secret), follows its portal's (a federated server
    /// token) or never expires. A password sign-in counts unless its password is remembered.
    static let kinds: [String: Source] = [
        PregeneratedTokenCredential.kind: .summary, APIKeyCredential.kind: .summary,
        OAuthUserCredential.kind: .refreshToken, CertificateCredential.kind: .certificate,
        TokenCredential.kind: .passwordToken,
    ]

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
            guard let source = kinds[summary.kind],
                let expires = try await expiry(of: summary, from: source, manager: manager), expires < deadline
            else { continue }
            lapses.append(Lapse(summary: summary, expires: expires))
        }
        return lapses.sorted { $0.expires < $1.expires }
    }

    /// When the credential `summary` names stops working, read from `source`.
    static func expiry(
        of summary: CredentialSummary, from source: Source, manager: AuthenticationManager
    ) async throws -> Date? {
        switch source {
        case .summary:
            return summary.expirationDate
        case .refreshToken:
            var stored = try await manager.arcGISCredentialStore.allCredentials()
            // (An inactive account's, too: see Switch.)
            if let user = summary.username {
                stored += try await manager.arcGISCredentialStore.accountStore(username: user).allCredentials()
            }
            let oauth = stored.compactMap { $0 as? OAuthUserCredential }
            return oauth.first {
                $0.serverContext.url == summary.server && $0.username == summary.username
            }?.refreshTokenExpirationDate
        case .passwordToken:
            let backend = manager.arcGISCredentialStore.backend
            // (A store that cannot keep a password, memory, keeps none.)
            let remembered = backend.isPersistent ? try RememberedPassword.kept(in: backend) : []
            let renews = remembered.contains { $0.server == summary.server && $0.username == summary.username }
            return renews ? nil : summary.expirationDate
        case .certificate:
            guard let url = URL(string: summary.server) else { return nil }
            let stored = try await manager.networkCredentialStore.credentials(for: try ServerContext.host(of: url))
            return stored.compactMap { $0 as? CertificateCredential }.first?.certificate.notAfter
        }
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
