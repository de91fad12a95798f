public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A username and password for HTTP authentication (Basic, Digest, NTLM, Negotiate) at one
/// protection space: a host and port (``host``) and, when the server names one, a realm.
///
/// libcurl does the scheme's work, restricted to the schemes the server offered (``schemes``).
/// Basic, which sends the password itself, is never used over plain http unless
/// ``allowsBasicOverHTTP`` is set. For Negotiate, a Kerberos ticket of the user is used when there
/// is one; otherwise one is obtained with the password (see ``KerberosTicket``).
public struct PasswordCredential: NetworkCredential, Equatable {
    /// `http-password`.
    public static let kind = "http-password"
    /// The host-level context (`scheme://host:port`).
    public let host: ServerContext
    /// The realm the server named, if any.
    public let realm: String?
    /// The user name (for Negotiate with a ticket, the ticket's principal or empty).
    public let username: String?
    /// The password (empty for Negotiate with the user's own Kerberos ticket).
    public let password: String
    /// The schemes the server offered and libcurl may use.
    public let schemes: TransportOptions.HTTPAuthSchemes
    /// Whether Basic may go over plain http (off by default: the password would travel in clear).
    public let allowsBasicOverHTTP: Bool

    /// Creates the credential. Throws ``PortalAuth/PortalAuthError/Code/insecureTransport`` when the only
    /// usable scheme is Basic over plain http and that is not allowed, and
    /// ``PortalAuth/PortalAuthError/Code/secretMissing`` for an empty password where one is needed.
    public init(
        host: ServerContext, realm: String?, username: String?, password: String,
        schemes: TransportOptions.HTTPAuthSchemes, allowsBasicOverHTTP: Bool = false
    ) throws {
        let usable = try Self.usableSchemes(schemes, on: host, allowsBasicOverHTTP: allowsBasicOverHTTP)
        let ticketOnly = usable == [.negotiate] && password.isEmpty
        guard ticketOnly || !password.isEmpty else {
            throw PortalAuthError(
                .secretMissing, "no password was given for \(username ?? "the user") @ \(host.host):\(host.port)",
                remedy: .provide(.password))
        }
        self.init(
            host: host, realm: realm, username: username, password: password, schemes: schemes,
            allowsBasicOverHTTP: allowsBasicOverHTTP, unchecked: ())
    }

    /// Negotiate with the user's own Kerberos ticket for `principal`, no password.
    public static func kerberosTicket(host: ServerContext, realm: String?, principal: String) -> PasswordCredential {
        PasswordCredential(
            host: host, realm: realm, username: principal, password: "", schemes: [.negotiate],
            allowsBasicOverHTTP: false, unchecked: ())
    }

    private init(
        host: ServerContext, realm: String?, username: String?, password: String,
        schemes: TransportOptions.HTTPAuthSchemes, allowsBasicOverHTTP: Bool, unchecked: Void
    ) {
        self.host = host
        self.realm = realm
        self.username = username
        self.password = password
        self.schemes = schemes
        self.allowsBasicOverHTTP = allowsBasicOverHTTP
    }

    /// The schemes a password may be sent with to `host`: Basic is left out over plain http unless
    /// allowed. Throws ``PortalAuth/PortalAuthError/Code/insecureTransport`` when nothing is left.
    public static func usableSchemes(
        _ schemes: TransportOptions.HTTPAuthSchemes, on host: ServerContext, allowsBasicOverHTTP: Bool
    ) throws -> TransportOptions.HTTPAuthSchemes {
        var usable = schemes
        if isPlainHTTP(host), !allowsBasicOverHTTP { usable.remove(.basic) }
        guard !usable.isEmpty else {
            throw PortalAuthError(
                .insecureTransport,
                "\(host.host):\(host.port) offers only HTTP Basic over plain http, which would send the password in "
                    + "clear; nothing was stored",
                remedy: .allowBasicOverHTTP(host: host))
        }
        return usable
    }

    static func isPlainHTTP(_ host: ServerContext) -> Bool { host.scheme == "http" }

    /// Whether this credential uses the user's own Kerberos ticket (Negotiate, no password).
    public var usesKerberosTicket: Bool { password.isEmpty && schemes.contains(.negotiate) }

    /// HTTP authentication restricted to the offered schemes (Basic left out over plain http
    /// unless allowed).
    public func apply(to options: inout TransportOptions) {
        var usable = schemes
        if Self.isPlainHTTP(host), !allowsBasicOverHTTP { usable.remove(.basic) }
        guard !usable.isEmpty else { return }
        options.httpAuthentication = TransportOptions.HTTPAuthentication(
            username: username ?? "", password: password, schemes: usable)
    }
}
