import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored sign-in in `renew`: when it lastingly expires, whether it can renew itself, and
/// the renewal, through the manager's one renewal path.
struct RenewOne {
    let summary: CredentialSummary
    let manager: AuthenticationManager
    let window: TimeInterval
    /// With `renew --rotate-api-keys`: how long a rotated API key lasts (nil: keys are not rotated).
    var apiKeyLifetime: TimeInterval?

    /// The line `renew` prints, and whether the sign-in is one that cannot be renewed in time.
    struct Outcome {
        var line: String
        var failed: Bool
    }

    private var name: String {
        "\(APIKeyLogin.portalServer(summary))\(summary.username.map { " (\($0))" } ?? "") \(summary.kind)"
    }

    func run() async -> Outcome {
        let now = Date()
        let deadline = now.addingTimeInterval(window)
        do {
            let (expires, renewable) = try await lasting()
            guard let expires, expires < deadline else {
                return Outcome(line: "\(name): \(Self.until(expires)), nothing to do", failed: false)
            }
            guard renewable else {
                return Outcome(
                    line:
                        "\(name): \(expires < now ? "expired" : "expires") \(expires.iso8601) and cannot renew itself: "
                        + advice, failed: true)
            }
            try await renew()
            let (after, _) = try await reread().lasting()
            guard let after, after <= expires else {
                return Outcome(line: "\(name): renewed, \(Self.until(after))", failed: false)
            }
            // Renewed, but what it renews itself with still ends as it did (a portal that gave no new
            // refresh token for the old one).
            return Outcome(
                line: "\(name): renewed, but it still ends \(after.iso8601) and cannot renew itself after that: "
                    + "sign in again (portal-auth login)", failed: true)
        } catch let error as PortalAuthError {
            return Outcome(line: "\(name): cannot be renewed: \(error.cliMessage)", failed: true)
        } catch {
            return Outcome(line: "\(name): cannot be renewed: \(error)", failed: true)
        }
    }

    /// This sign-in as stored now (after a renewal).
    func reread() async throws -> RenewOne {
        let current = try await manager.arcGISCredentialStore.summaries().first {
            $0.server == summary.server && $0.kind == summary.kind && $0.username == summary.username
        }
        return RenewOne(summary: current ?? summary, manager: manager, window: window, apiKeyLifetime: apiKeyLifetime)
    }

    static func until(_ date: Date?) -> String { date.map { "valid until \($0.iso8601)" } ?? "does not expire" }

    /// The sign-in's own answer to how it renews (an unreadable item's: it cannot).
    private var renewal: CredentialRenewal { summary.renewal ?? .cannotRenew(endsAt: summary.expirationDate) }

    /// When the sign-in stops working for good unless renewed (an OAuth sign-in's refresh token;
    /// any other's token), and whether it renews unattended, as it answers
    /// (``CredentialRenewal/lasting(tokenExpires:signsInUnattended:now:)``): when the manager says
    /// it signs in unattended (a remembered password), or by a rotation when `renew` rotates
    /// (`--rotate-api-keys`).
    func lasting() async throws -> (Date?, Bool) {
        var unattended = false
        switch renewal {
        case .needsUnattendedSignIn: unattended = try await manager.signsInUnattended(for: summary)
        case .rotates: unattended = apiKeyLifetime != nil
        default: break
        }
        let lasting = renewal.lasting(tokenExpires: summary.expirationDate, signsInUnattended: unattended, now: Date())
        return (lasting.until, lasting.renewable)
    }

    /// What to do about a sign-in that ends within the window and is not renewed: rotate one that
    /// rotates; else the credential's own remedy, or sign in again.
    private var advice: String {
        if case .rotates = renewal {
            return "rotate it with portal-auth renew --rotate-api-keys (or portal-auth api-key rotate)"
        }
        return summary.remedyWhenLapsed?.cliAdvice ?? "sign in again (portal-auth login)"
    }

    /// The renewal, in one place: a sign-in that needs an unattended sign-in with its remembered
    /// password; any other through the manager's one renewal path, to last
    /// (`renewCredential(_:refused:lasting:)`, once across processes, renewing even a token that
    /// is still good; an OAuth sign-in exchanges its refresh token there for a new one, however far
    /// its end is).
    func renew() async throws {
        // (A key's row is named `api-key PORTAL`, no URL.)
        if case .rotates = renewal { return try await rotateAPIKey() }
        guard let url = URL(string: summary.server) else { return }
        if renewal == .needsUnattendedSignIn {
            try await manager.renewIfExpiring(url, within: window)
            return
        }
        // The credential this renewal was decided on (its summary): when the store holds another now,
        // another process renewed it meanwhile (two `renew` runs at once) and the reading after says so.
        guard let credential = try await manager.arcGISCredentialStore.credential(for: url),
            credential.renewal == renewal
        else { return }
        _ = try await manager.renewCredential(credential, refused: true, lasting: true)
    }
}
