#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CPortalAuth
import Synchronization

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
    /// The principal of the ticket in ``memoryCache`` and when it expires.
    private static let obtained = Mutex<(principal: String, expires: Date)?>(nil)

    /// The principal of the user's current, unexpired ticket (`alice@REALM`), or `nil`.
    public static func current() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard pa_gss_ticket_principal(&buffer, buffer.count) == 0 else { return nil }
        return CString.text(buffer)
    }

    /// Makes sure requests have a ticket for `principal` (`alice` or `alice@REALM`): the user's
    /// current one when it is that principal's, otherwise one obtained with `password` from the KDC.
    /// Throws ``PortalAuthError/Code/authenticationFailed`` when the KDC refuses the password.
    public static func ensure(principal: String, password: String, for host: String) async throws {
        if let held = obtained.withLock({ $0 }) {
            if held.principal == principal, held.expires.timeIntervalSinceNow > 60 { return }
            if held.principal != principal, held.expires.timeIntervalSinceNow > 0 {
                throw PortalAuthError(.invalidArgument, "this process already signs in to Negotiate servers as \(held.principal), so it cannot also sign in to \(host) as \(principal): use one Kerberos user per process (or kinit as \(principal))")
            }
        } else if let current = current(), current == principal || current.hasPrefix(principal + "@") {
            return
        }
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
            if lower.contains("preauthentication failed") || lower.contains("password incorrect") || lower.contains("decrypt integrity") {
                throw PortalAuthError(.authenticationFailed, "the Kerberos KDC refused the password of \(principal) for \(host) (\(reason)): check the password; nothing was stored", cause: .other("GSS-API: \(reason)"))
            }
            throw PortalAuthError(.authenticationFailed, "no Kerberos ticket could be obtained for \(principal) to sign in to \(host) (\(reason)): check the user name and the Kerberos configuration (krb5.conf), or run kinit first", cause: .other("GSS-API: \(reason)"))
        }
        obtained.withLock { $0 = (principal, Date().addingTimeInterval(TimeInterval(result.2))) }
    }

    /// Points the calling thread's GSS-API at the ticket obtained with a password, if any (the
    /// HTTP event loop calls it before each round of transfers).
    static func applyToCurrentThread() {
        pa_gss_apply_thread_ccache()
    }
}
