#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How a stored credential is renewed, and until when it works if it is not: what each credential
/// type answers for itself (``StoredCredential/renewal``), so that a program that keeps sign-ins
/// alive (the CLI's `renew` and `status --check`) asks the credential instead of reading its kind,
/// and a plugin's own credential is treated as the bundled ones are.
public enum CredentialRenewal: Sendable, Equatable {
    /// It renews itself unattended whenever its token expires, without end (an app with its
    /// client secret, a token whose password is in memory).
    case renewsItself
    /// It renews itself unattended until `until`, when what it renews itself with ends (an OAuth
    /// refresh token; renewing it to last, ``ArcGISCredential/renewedToLast(using:)``, moves that
    /// end); `nil`: no end is known.
    case renewsItselfUntil(Date?)
    /// It renews unattended only when an ``UnattendedRenewal`` signs in again for it (a password
    /// sign-in whose password is kept, ``RememberedPasswords``); without one, it stops working when
    /// its token expires.
    case needsUnattendedSignIn
    /// It follows the credential it was derived from (a federated server token is obtained again
    /// from its portal).
    case followsPortal
    /// It cannot be renewed: it stops working at `endsAt` (`nil`: it does not expire), and only
    /// signing in again helps then (a pregenerated token, an API key, a client certificate).
    case cannotRenew(endsAt: Date?)
    /// It is replaced before `endsAt` by one of its own making, without downtime, when the program
    /// that keeps sign-ins alive is asked to (an API key made on this machine, which knows its item:
    /// a new key in its other slot, ``APIKeyAdministration/rotate(_:itemID:expiration:report:)``);
    /// otherwise it stops working at `endsAt`.
    case rotates(endsAt: Date?)

    /// When the credential stops working for good unless someone signs in again; `nil` when it
    /// renews itself without end, follows its portal or never expires. What `status --check` warns of.
    ///
    /// - Parameters:
    ///   - tokenExpires: when its token expires (``StoredCredential/presentedToken``).
    ///   - signsInUnattended: whether an unattended sign-in is at hand for it (a kept password), or
    ///     for one that ``rotates(endsAt:)``, whether the program rotates it.
    public func lapse(tokenExpires: Date?, signsInUnattended: Bool) -> Date? {
        switch self {
        case .renewsItself, .followsPortal: return nil
        case .renewsItselfUntil(let until): return until
        case .needsUnattendedSignIn: return signsInUnattended ? nil : tokenExpires
        case .cannotRenew(let endsAt): return endsAt
        case .rotates(let endsAt): return signsInUnattended ? nil : endsAt
        }
    }

    /// For a program that renews ahead of time (`renew`): the date before which to renew the
    /// credential (its token's expiry, or the end of what it renews itself with; `nil`: none), and
    /// whether it can be renewed unattended now (`signsInUnattended`: a kept password is at hand, or
    /// the program rotates what ``rotates(endsAt:)``). A credential that follows its portal is renewed
    /// with its portal's.
    public func lasting(tokenExpires: Date?, signsInUnattended: Bool, now: Date) -> (until: Date?, renewable: Bool) {
        switch self {
        case .renewsItself: return (tokenExpires, true)
        case .renewsItselfUntil(let until): return (until, until.map { $0 > now } ?? true)
        case .needsUnattendedSignIn: return (tokenExpires, signsInUnattended)
        case .followsPortal: return (nil, true)
        case .cannotRenew(let endsAt): return (endsAt, false)
        case .rotates(let endsAt): return (endsAt, signsInUnattended)
        }
    }
}
