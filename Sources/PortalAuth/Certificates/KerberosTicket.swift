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
/// which then becomes the process's default (`KRB5CCNAME`); it is never written to disk.
public enum KerberosTicket {
    /// The credential cache in memory that tickets obtained with a password go to.
    public static let memoryCache = "MEMORY:portal-auth"
    private static let obtained = Mutex<Set<String>>([])

    /// The principal of the user's current, unexpired ticket (`alice@REALM`), or `nil`.
    public static func current() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard pa_gss_ticket_principal(&buffer, buffer.count) == 0 else { return nil }
        return CString.text(buffer)
    }

    /// Makes sure the process has a ticket for `principal` (`alice` or `alice@REALM`): the current
    /// one when it is that principal's, otherwise one obtained with `password` from the KDC.
    /// Throws ``PortalAuthError/Code/authenticationFailed`` when the KDC refuses the password.
    public static func ensure(principal: String, password: String, for host: String) async throws {
        if obtained.withLock({ $0.contains(principal) }) { return }
        if let current = current(), current == principal || current.hasPrefix(principal + "@") { return }
        let result: (Int32, String) = await withCheckedContinuation { continuation in
            // The KDC exchange blocks: on a thread of its own.
            BlockingIO.detached {
                var error = [CChar](repeating: 0, count: 512)
                let rc = pa_gss_obtain_ticket(principal, password, memoryCache, &error, error.count)
                continuation.resume(returning: (rc, CString.text(error)))
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
        obtained.withLock { _ = $0.insert(principal) }
    }
}
