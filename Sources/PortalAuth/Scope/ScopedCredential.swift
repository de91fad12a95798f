#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The core's one answer to "which credential may go with a request to this URL, and exactly which
/// URLs may that credential go to": an ArcGIS credential, what kind of credential it is, and its
/// scope as normalised URL prefixes.
///
/// Every surface asks for it and none decides on its own: the request loop (``AuthenticationManager/send(_:)``)
/// attaches a credential only where ``covers(_:)`` says so, a program that hands a token on gets
/// one from ``AuthenticationManager/scopedCredential(for:interactive:)`` (or, without the network,
/// from ``CredentialStore/storedScopedCredential(for:)``), and prints ``prefixes`` for the tools
/// it hands the token to, so that they need not guess.
///
/// A prefix is `scheme://host:port/path/`: lower-case scheme and host (an IPv6 address in
/// brackets), the port always written, the path percent-encoded as the strict URL reading leaves
/// it, ending in `/`. A URL is inside the scope when its strict reading (refused when URL readers
/// could disagree about it: userinfo, backslashes, encoded separators; dot segments removed),
/// written the same way (``normalized(_:)``) with one `/` appended, starts with one of the prefixes.
/// The scheme is part of the match: a token that requires https has https prefixes only.
public struct ScopedCredential: Sendable {
    /// What kind of credential the answer holds, in the vocabulary that `token --format json`
    /// prints as `kind`.
    public enum Kind: String, Sendable, CaseIterable {
        /// A portal's or a standalone server's token of a user or an application (a token sign-in,
        /// OAuth, a pregenerated token, a plugin's): its scope is the server context it was issued for.
        case token
        /// A federated ArcGIS Server's token, obtained from the owning portal with the portal's
        /// credential: its scope is that server.
        case federatedToken = "federated-token"
        /// An API key: its scope is its portal, the portal's helper services and the hosts given
        /// with it, over https only.
        case apiKey = "api-key"
    }

    /// The credential.
    public let credential: any ArcGISCredential
    /// What kind of credential it is.
    public let kind: Kind
    /// Every URL prefix the credential may go to (see the type's description), in a stable order.
    public let prefixes: [String]

    /// The answer for `credential`: its kind and the prefixes of its scope.
    public init(_ credential: any ArcGISCredential) {
        self.credential = credential
        if let key = credential as? APIKeyCredential {
            kind = .apiKey
            let contexts = [key.portal] + key.serviceContexts + key.hosts
            prefixes = Self.unique(contexts.map { Self.prefix(of: $0, scheme: "https") })
            return
        }
        kind = credential.derivedFrom == nil ? .token : .federatedToken
        let context = credential.serverContext
        prefixes = [Self.prefix(of: context, scheme: credential.tokenInfo.isSSLRequired ? "https" : context.scheme)]
    }

    /// Whether a request to `url` may carry the credential: `url`, read strictly, is inside one of
    /// ``prefixes``. Never for a URL the strict reading refuses.
    public func covers(_ url: URL) -> Bool {
        guard let normalized = Self.normalized(url) else { return false }
        let path = normalized + "/"
        return prefixes.contains { path.hasPrefix($0) }
    }

    /// `url` as the scope's prefixes are written: `scheme://host:port/path` with the port always
    /// written and no trailing `/`, no query and no fragment; `nil` when the strict reading refuses it.
    public static func normalized(_ url: URL) -> String? {
        guard let parts = try? ServerContext.parts(of: url) else { return nil }
        return origin(scheme: parts.scheme, host: parts.host, port: parts.port) + parts.path
    }

    /// The scope of an identity-aware proxy's token handed on with an answer for `url`: the one
    /// origin (`scheme://host:port/`) that was found behind the proxy. Empty when the strict
    /// reading refuses `url`.
    public static func proxyPrefixes(for url: URL) -> [String] {
        guard let parts = try? ServerContext.parts(of: url) else { return [] }
        return [origin(scheme: parts.scheme, host: parts.host, port: parts.port) + "/"]
    }

    /// `context`'s prefix with `scheme`.
    static func prefix(of context: ServerContext, scheme: String) -> String {
        origin(scheme: scheme, host: context.host, port: context.port) + context.path + "/"
    }

    /// `scheme://host:port`, an IPv6 address in brackets.
    static func origin(scheme: String, host: String, port: Int) -> String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// `list` without repeats, in its order.
    static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }
}
