public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A token made elsewhere (for example by an administrator or another tool), with its
/// expiration, SSL flag and optional referer, bound to one server context.
public struct PregeneratedTokenCredential: ArcGISCredential, Equatable {
    /// `pregenerated-token`.
    public static let kind = "pregenerated-token"
    /// The server context the token is for.
    public let serverContext: ServerContext
    /// The token.
    public let tokenInfo: TokenInfo
    /// The referer the token is bound to.
    public let referer: String?
    /// The user, when known.
    public let username: String?

    /// Creates the credential.
    public init(serverContext: ServerContext, tokenInfo: TokenInfo, referer: String? = nil, username: String? = nil) {
        self.serverContext = serverContext
        self.tokenInfo = tokenInfo
        self.referer = referer
        self.username = username
    }

    /// Creates the credential for the server context of `url` from a token string.
    ///
    /// Throws ``PortalAuth/PortalAuthError/Code/secretMissing`` for an empty token.
    public init(
        url: URL, token: String, expiresIn: TimeInterval?, isSSLRequired: Bool? = nil, referer: String? = nil,
        username: String? = nil
    ) throws {
        let token = token.trimmingWhitespace
        guard !token.isEmpty else {
            throw PortalAuthError(.secretMissing, "the token is empty", remedy: .provide(.token))
        }
        guard TokenInfo.isUsableToken(token), token.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" }) else {
            throw PortalAuthError(
                .invalidArgument,
                "the token contains spaces, control characters (such as NUL) or non-ASCII characters, so it is not "
                    + "one token",
                remedy: .provide(.token))
        }
        if let expiresIn, expiresIn <= 0 {
            throw PortalAuthError(
                .invalidArgument, "the token's lifetime must be a positive number of seconds",
                remedy: .provide(.tokenLifetime))
        }
        let context = try ServerContext(url: url)
        self.init(
            serverContext: context,
            tokenInfo: TokenInfo(
                accessToken: token, expirationDate: expiresIn.map { Date().addingTimeInterval($0) },
                isSSLRequired: isSSLRequired ?? (context.scheme == "https")),
            referer: referer, username: username)
    }

    /// Not renewed: the token works until its expiry.
    public var renewal: CredentialRenewal { .cannotRenew(endsAt: tokenInfo.expirationDate) }
}

extension String {
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}

/// Reads pregenerated tokens back from the stores and answers challenges on them: a refused or
/// expired pregenerated token cannot be renewed, so the answer is an error that says how to get a new one.
///
/// Register it before plugins that prompt, so a refused pregenerated token does not turn into a password prompt.
public struct PregeneratedTokenHandler: AuthenticationChallengeHandler {
    /// Creates the handler.
    public init() {}

    /// ``PregeneratedTokenCredential``.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] { [PregeneratedTokenCredential.self] }

    /// ArcGIS challenges whose refused credential is a pregenerated token.
    public func canHandle(_ challenge: AuthenticationChallenge) -> Bool {
        guard case .arcGIS(let arcGIS) = challenge else { return false }
        return arcGIS.previousCredential is PregeneratedTokenCredential
    }

    /// Fails with an error naming the command that stores a new token.
    public func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition {
        guard case .arcGIS(let arcGIS) = challenge, let previous = arcGIS.previousCredential else {
            return .continueWithoutCredential
        }
        let expired = previous.tokenInfo.isExpired()
        throw PortalAuthError(
            .credentialExpired,
            "the pregenerated token for \(previous.serverContext) "
                + "\(expired ? "has expired" : "was refused (\(arcGIS.error.code) \(arcGIS.error.message))")",
            remedy: .signIn(previous.howToSignIn), cause: arcGIS.error.cause)
    }
}
