internal import CPortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Kerberos tickets for HTTP Negotiate (SPNEGO), through GSS-API (MIT Kerberos, loaded on first use).
///
/// libcurl does the Negotiate exchange with the default credential cache. When the user has a
/// ticket there (from `kinit`), it is used as it is. When not, and a password is known, a ticket
/// is obtained with it into a credential cache in this process's memory (`MEMORY:portal-auth`),
/// which the HTTP event-loop thread then uses (`gss_krb5_ccache_name`, per thread: the process's
/// environment is not changed, and the ticket is never written to disk). One process signs in to
/// Negotiate servers with a password as one user; the ticket is obtained again when it nears expiry.
public enum KerberosTicket {
    /// The credential cache in memory that tickets obtained with a password go to.
    public static let memoryCache = "MEMORY:portal-auth"
    /// What this process knows, so requests do not ask GSS-API or the KDC each time: the ticket in
    /// ``memoryCache`` (its principal and expiry), the user's own ticket (checked at most once a
    /// minute), and a principal and password the KDC refused or could not take (retried after a
    /// minute; the password is kept as its SHA-256 only).
    private struct Known {
        var obtained: (principal: String, expires: Date)?
        var userTicket: (principal: String, checkedUntil: Date)?
        var failed: (principal: String, password: [UInt8], until: Date, error: PortalAuthError)?
    }
    private static let known = Locked(Known())
    /// Concurrent first requests share one KDC exchange.
    private static let exchanges = SingleFlight<String, Void>()

    /// The principal of the user's current, unexpired ticket (`alice@REALM`), or `nil`.
    public static func current() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard pa_gss_ticket_principal(&buffer, buffer.count) == 0 else { return nil }
        return CString.text(buffer)
    }

    /// `alice` and `alice@REALM` name the same user (the default realm fills in the first).
    static func samePrincipal(_ a: String, _ b: String) -> Bool {
        a == b || a.hasPrefix(b + "@") || b.hasPrefix(a + "@")
    }

    /// Refuses a request that relies on the user's own ticket for `principal` while this process's
    /// HTTP thread uses a ticket obtained with a password for another user: it would sign in as that one.
    public static func checkUserTicket(principal: String, for host: String) throws {
        guard let held = known.withLock({ $0.obtained }), held.expires > Date(), !principal.isEmpty,
            !samePrincipal(held.principal, principal)
        else { return }
        throw oneUserPerProcess(held: held.principal, wanted: principal, host: host)
    }

    private static func oneUserPerProcess(held: String, wanted: String, host: String) -> PortalAuthError {
        PortalAuthError(
            .invalidArgument,
            "this process already signs in to Negotiate servers as \(held), so it cannot also sign in to \(host) as "
                + "\(wanted)"
        )
    }

    /// Makes sure requests have a ticket for `principal` (`alice` or `alice@REALM`): the user's
    /// current one when it is that principal's, otherwise one obtained with `password` from the KDC.
    /// Throws ``PortalAuthError/Code/authenticationFailed`` when the KDC refuses the password.
    public static func ensure(principal: String, password: String, for host: String) async throws {
        let now = Date()
        let state = known.withLock { $0 }
        if let held = state.obtained, held.expires.timeIntervalSince(now) > 0 {
            if samePrincipal(held.principal, principal), held.expires.timeIntervalSince(now) > 60 { return }
            if !samePrincipal(held.principal, principal) {
                throw oneUserPerProcess(held: held.principal, wanted: principal, host: host)
            }
        } else if let user = state.userTicket, user.checkedUntil > now, samePrincipal(user.principal, principal) {
            return
        } else if let current = current(), samePrincipal(current, principal) {
            known.withLock { $0.userTicket = (current, now.addingTimeInterval(60)) }
            return
        }
        let digest = try PortalAuthCrypto.sha256(Array(password.utf8))
        if let failed = state.failed, failed.until > now, failed.principal == principal, failed.password == digest {
            throw failed.error
        }
        try await exchanges.run(principal) {
            if let held = known.withLock({ $0.obtained }), held.principal == principal,
                held.expires.timeIntervalSinceNow > 60
            {
                return
            }
            try await obtain(principal: principal, password: password, digest: digest, host: host)
        }
    }

    private static func obtain(principal: String, password: String, digest: [UInt8], host: String) async throws {
        let result: (Int32, String, UInt32) = await withCheckedContinuation { continuation in
            // The KDC exchange blocks: on a thread of its own.
            BlockingIO.detached {
                var error = [CChar](repeating: 0, count: 512)
                var lifetime: UInt32 = 0
                let rc = pa_gss_obtain_ticket(principal, password, memoryCache, &lifetime, &error, error.count)
                continuation.resume(returning: (rc, CString.text(error), lifetime))
            }
        }
        guard result.0 == 0 else {
            let reason = result.1
            let lower = reason.lowercased()
            let error: PortalAuthError
            if lower.contains("preauthentication failed") || lower.contains("password incorrect")
                || lower.contains("decrypt integrity")
            {
                error = PortalAuthError(
                    .authenticationFailed,
                    "the Kerberos KDC refused the password of \(principal) for \(host) (\(reason)); nothing was stored",
                    remedy: .provide(.password), cause: .other("GSS-API: \(reason)"))
            } else {
                error = PortalAuthError(
                    .authenticationFailed,
                    "no Kerberos ticket could be obtained for \(principal) to sign in to \(host) (\(reason))",
                    remedy: .checkKerberos(principal: principal), cause: .other("GSS-API: \(reason)"))
            }
            known.withLock { $0.failed = (principal, digest, Date().addingTimeInterval(60), error) }
            throw error
        }
        known.withLock {
            $0.obtained = (principal, Date().addingTimeInterval(TimeInterval(result.2)))
            $0.failed = nil
        }
    }

    /// Points the calling thread's GSS-API at the ticket obtained with a password, if any (the
    /// HTTP event loop calls it before each round of transfers).
    static func applyToCurrentThread() {
        pa_gss_apply_thread_ccache()
    }
}
