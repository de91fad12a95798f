#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An ArcGIS error body: `{"error":{"code":…,"message":…,"messageCode":…,"details":[…]}}`.
public struct ArcGISError: Sendable, Equatable, Codable {
    /// The ArcGIS code (498, 499, 400, 403, …).
    public var code: Int
    /// The message.
    public var message: String
    /// The message code, for example `GWM_0003`.
    public var messageCode: String?
    /// Details.
    public var details: [String]

    /// Creates an ArcGIS error.
    public init(code: Int, message: String, messageCode: String? = nil, details: [String] = []) {
        self.code = code
        self.message = message
        self.messageCode = messageCode
        self.details = details
    }

    /// Reads the error out of a response body, or `nil` when the body is not an ArcGIS error.
    public static func parse(_ body: [UInt8]) -> ArcGISError? {
        // Cheap check first: every response passes through here.
        guard let first = body.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            body[first] == UInt8(ascii: "{"),
            body.count < 65_536,
            String(decoding: body.prefix(64), as: UTF8.self).contains("\"error\"")
        else { return nil }
        guard let json = try? JSONValue.parse(body, source: ""), let error = json["error"] else { return nil }
        guard let number = error["code"]?.doubleValue else { return nil }
        // A code is a small integer; a server's 1e300 or 4.5 is kept as 0 (unknown), never trapped on.
        let code = number.isFinite && number.rounded() == number && abs(number) < 1e9 ? Int(number) : 0
        let details = error["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return ArcGISError(
            code: code, message: error["message"]?.stringValue ?? error["error_description"]?.stringValue ?? "",
            messageCode: error["messageCode"]?.stringValue, details: details)
    }

    /// The error as a ``PortalAuthError/Cause``.
    public var cause: PortalAuthError.Cause {
        .arcGIS(code: code, messageCode: messageCode, message: message, details: details)
    }
}

/// A challenge from an ArcGIS server: the resource needs a token (499), the token was
/// refused (498), or the anonymous user may not see it (403 `GWM_0003` without a token).
public struct ArcGISAuthenticationChallenge: Sendable {
    /// The URL of the request that was challenged.
    public var requestURL: URL
    /// The server context a credential must be obtained for (for a federated server, its portal).
    public var serverContext: ServerContext
    /// The ArcGIS error that raised the challenge (a synthetic 499 when a token expired before use).
    public var error: ArcGISError
    /// The credential that was used and refused, if any.
    public var previousCredential: (any ArcGISCredential)?
    /// The token service to use, when it is known (from `/rest/info`); otherwise the plugin asks
    /// ``AuthenticationServices/tokenServiceURL(for:)``.
    public var tokenServiceURL: URL?

    /// Creates a challenge.
    public init(
        requestURL: URL, serverContext: ServerContext, error: ArcGISError,
        previousCredential: (any ArcGISCredential)? = nil, tokenServiceURL: URL? = nil
    ) {
        self.requestURL = requestURL
        self.serverContext = serverContext
        self.error = error
        self.previousCredential = previousCredential
        self.tokenServiceURL = tokenServiceURL
    }
}

/// A challenge from the network layer.
public struct NetworkAuthenticationChallenge: Sendable {
    /// What the server asks for.
    public enum Kind: Sendable, Equatable {
        /// HTTP 401 with `WWW-Authenticate`: the schemes offered and the realm.
        case httpAuthentication(schemes: TransportOptions.HTTPAuthSchemes, realm: String?)
        /// The TLS server wants a client certificate.
        case clientCertificate
        /// The server's certificate did not verify.
        case serverTrust(reason: ServerTrustFailure)
    }
    /// The URL of the request.
    public var requestURL: URL
    /// The host-level context (`scheme://host:port`).
    public var host: ServerContext
    /// What is asked for.
    public var kind: Kind
    /// The transport's description of the failure (no secrets).
    public var message: String
    /// The network credential that was used and refused, if any.
    public var previousCredential: (any NetworkCredential)?

    /// Creates a challenge.
    public init(
        requestURL: URL, host: ServerContext, kind: Kind, message: String,
        previousCredential: (any NetworkCredential)? = nil
    ) {
        self.requestURL = requestURL
        self.host = host
        self.kind = kind
        self.message = message
        self.previousCredential = previousCredential
    }
}

/// A challenge routed by the ``AuthenticationManager`` to the handler plugins.
public enum AuthenticationChallenge: Sendable {
    /// An ArcGIS token challenge.
    case arcGIS(ArcGISAuthenticationChallenge)
    /// A network challenge.
    case network(NetworkAuthenticationChallenge)
    /// An identity-aware proxy (Entra Application Proxy) in front of the host wants sign-in.
    case iap(IAPAuthenticationChallenge)

    /// The URL of the request that was challenged.
    public var requestURL: URL {
        switch self {
        case .arcGIS(let c): return c.requestURL
        case .network(let c): return c.requestURL
        case .iap(let c): return c.requestURL
        }
    }
}

extension AuthenticationChallenge {
    /// A credential a handler answers with, of the kind of the challenge it answers.
    public enum Credential: Sendable {
        /// An ArcGIS credential, kept in the ``ArcGISCredentialStore``.
        case arcGIS(any ArcGISCredential)
        /// A network credential, kept in the ``NetworkCredentialStore``.
        case network(any NetworkCredential)
        /// An IAP credential, kept in the ``IAPCredentialStore``.
        case iap(any IAPAuthorizationCredential)
    }

    /// A handler's answer to a challenge: the SDK's `continueWithCredential(_:)`,
    /// `continueWithoutCredential` and `cancel`.
    ///
    /// The SDK nests a disposition in each challenge type its handlers receive
    /// (`ArcGISAuthenticationChallenge.Disposition`, `NetworkAuthenticationChallenge.Disposition`).
    /// Here every plugin receives an ``AuthenticationChallenge`` (one ordered chain of plugins answers
    /// all kinds, so a program composes plugins instead of writing one handler per kind), so the
    /// disposition nests in that type and carries a ``Credential`` of the matching kind.
    public enum Disposition: Sendable {
        /// Store this credential and retry the request once with it.
        case continueWithCredential(Credential)
        /// Let the request fail with the server's answer.
        case continueWithoutCredential
        /// Cancel the request.
        case cancel
    }
}

/// A challenge-handler plugin. Plugins register with the ``AuthenticationManager`` in order;
/// each challenge goes to the first plugin whose ``canHandle(_:)`` returns true.
public protocol AuthenticationChallengeHandler: Sendable {
    /// The credential types this plugin makes, so the stores can read them back.
    var arcGISCredentialTypes: [any ArcGISCredential.Type] { get }
    /// The network credential types this plugin makes.
    var networkCredentialTypes: [any NetworkCredential.Type] { get }
    /// The IAP credential types this plugin makes.
    var iapCredentialTypes: [any IAPAuthorizationCredential.Type] { get }
    /// Whether the plugin answers this challenge.
    func canHandle(_ challenge: AuthenticationChallenge) -> Bool
    /// Answers the challenge. The plugin sends its own requests (a token service, a sign-in page's
    /// endpoints) through `services`, which carries a host's network credentials and a proxy's token
    /// but answers no ArcGIS challenge; never through the manager, whose request to the server being
    /// signed in to would wait for this very sign-in.
    func handle(
        _ challenge: AuthenticationChallenge, services: AuthenticationServices
    ) async throws -> AuthenticationChallenge.Disposition
}

extension AuthenticationChallengeHandler {
    /// None by default.
    public var arcGISCredentialTypes: [any ArcGISCredential.Type] { [] }
    /// None by default.
    public var networkCredentialTypes: [any NetworkCredential.Type] { [] }
    /// None by default.
    public var iapCredentialTypes: [any IAPAuthorizationCredential.Type] { [] }
}

extension PortalAuthError {
    /// The error for an ArcGIS error body that `url` answered (one that is not a challenge to
    /// answer): its code, message and details, quoted as the server wrote them.
    package static func arcGIS(_ error: ArcGISError, from url: URL) -> PortalAuthError {
        let details = error.details.isEmpty ? "" : " (" + error.details.joined(separator: "; ") + ")"
        return PortalAuthError(
            .arcGISError,
            "\(ServerContext.describe(url)) answered ArcGIS error \(error.code): \(error.message)\(details)",
            remedy: .none, cause: error.cause)
    }
}
