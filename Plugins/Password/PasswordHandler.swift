import Logging
public import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Supplies a username and password when a server answers HTTP 401 with `WWW-Authenticate`: a
/// ``PortalAuth/PasswordProvider`` of network challenges (the challenge's
/// ``PortalAuth/NetworkAuthenticationChallenge/host`` and the realm of its kind).
///
/// A command-line tool prompts on a terminal without echo or reads standard input; programs
/// inject their own.
public protocol NetworkPasswordProvider: PasswordProvider where Challenge == NetworkAuthenticationChallenge {}

/// A provider with fixed credentials, for programs that already hold them.
public typealias StaticNetworkPasswordProvider = StaticPasswordProvider<NetworkAuthenticationChallenge>

extension StaticPasswordProvider: NetworkPasswordProvider where Challenge == NetworkAuthenticationChallenge {}

/// Answers HTTP 401 challenges (Basic, Digest, NTLM, Negotiate) with a ``PasswordCredential``
/// restricted to the schemes the server offered.
///
/// For a Negotiate-only server, a Kerberos ticket the user already has (from `kinit`) is used
/// without asking; otherwise the provider is asked and a ticket is obtained with the password.
public struct PasswordHandler: AuthenticationChallengeHandler {
    let provider: any NetworkPasswordProvider
    let allowsBasicOverHTTP: Bool

    /// Creates the handler. `allowsBasicOverHTTP` lets Basic send passwords over plain http (off by default).
    public init(provider: any NetworkPasswordProvider, allowsBasicOverHTTP: Bool = false) {
        self.provider = provider
        self.allowsBasicOverHTTP = allowsBasicOverHTTP
    }

    /// ``PasswordCredential``.
    public var networkCredentialTypes: [any NetworkCredential.Type] { [PasswordCredential.self] }

    /// HTTP authentication challenges.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        if case .network(let network) = challenge, case .httpAuthentication = network.kind { return true }
        return false
    }

    /// Uses a Kerberos ticket for Negotiate when there is one; otherwise asks the provider.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .network(let network) = challenge, case .httpAuthentication(let schemes, let realm) = network.kind
        else { return .continueWithoutCredential }
        // Refused before anyone is asked for a password: Basic alone over plain http.
        _ = try PasswordCredential.usableSchemes(schemes, on: network.host, allowsBasicOverHTTP: allowsBasicOverHTTP)
        let refusedTicket = (network.previousCredential as? PasswordCredential)?.usesKerberosTicket == true
        if schemes.contains(.negotiate), !refusedTicket, let principal = KerberosTicket.current() {
            services.logger.debug("using the Kerberos ticket", metadata: ["host": "\(network.host)"])
            return .continueWithCredential(
                .network(PasswordCredential.kerberosTicket(host: network.host, realm: realm, principal: principal)))
        }
        guard let (username, password) = try await provider.usernameAndPassword(for: network) else { return .cancel }
        let credential = try PasswordCredential(
            host: network.host, realm: realm, username: username, password: password,
            schemes: schemes, allowsBasicOverHTTP: allowsBasicOverHTTP)
        return .continueWithCredential(.network(credential))
    }
}
