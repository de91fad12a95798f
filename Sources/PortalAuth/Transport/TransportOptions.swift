#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Per-request settings that network credentials contribute (see ``NetworkCredential``).
///
/// The transport applies them to this request only: nothing here changes another host's requests.
public struct TransportOptions: Sendable, Equatable {
    /// HTTP authentication schemes.
    public struct HTTPAuthSchemes: OptionSet, Sendable, Hashable, Codable {
        /// The raw bit mask.
        public let rawValue: Int
        /// Creates a set from its bit mask.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// HTTP Basic.
        public static let basic = HTTPAuthSchemes(rawValue: 1 << 0)
        /// HTTP Digest.
        public static let digest = HTTPAuthSchemes(rawValue: 1 << 1)
        /// NTLM.
        public static let ntlm = HTTPAuthSchemes(rawValue: 1 << 2)
        /// SPNEGO / Kerberos.
        public static let negotiate = HTTPAuthSchemes(rawValue: 1 << 3)
    }

    /// Username and password for HTTP authentication, restricted to `schemes`.
    public struct HTTPAuthentication: Sendable, Equatable {
        /// The user name (for Negotiate with a Kerberos ticket it may be empty).
        public var username: String
        /// The password.
        public var password: String
        /// The schemes libcurl may use.
        public var schemes: HTTPAuthSchemes
        /// Creates HTTP authentication settings.
        public init(username: String, password: String, schemes: HTTPAuthSchemes) {
            self.username = username
            self.password = password
            self.schemes = schemes
        }
    }

    /// A client certificate presented from memory.
    public struct ClientCertificate: Sendable, Equatable {
        /// The PKCS#12 bytes.
        public var pkcs12: [UInt8]
        /// The PKCS#12 password.
        public var password: String
        /// Creates client-certificate settings.
        public init(pkcs12: [UInt8], password: String) {
            self.pkcs12 = pkcs12
            self.password = password
        }
    }

    /// HTTP authentication for this request, if any.
    public var httpAuthentication: HTTPAuthentication?
    /// A client certificate for this request, if any.
    public var clientCertificate: ClientCertificate?
    /// A pinned public key (`sha256//BASE64`) that replaces CA verification for this host only.
    public var pinnedPublicKey: String?

    /// No options.
    public init(
        httpAuthentication: HTTPAuthentication? = nil, clientCertificate: ClientCertificate? = nil,
        pinnedPublicKey: String? = nil
    ) {
        self.httpAuthentication = httpAuthentication
        self.clientCertificate = clientCertificate
        self.pinnedPublicKey = pinnedPublicKey
    }
}
