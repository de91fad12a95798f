#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a program that hands a token on gives with it, the same everywhere: the JSON object
/// `portal-auth token --format json` prints, serve's token endpoint answers and the Python adapter
/// reads, and the headers that must go with the token. Render a ``CredentialDecision`` with it.
public enum TokenJSON {
    /// The version of the object; it changes only when a key changes meaning or goes.
    public static let version = 1

    /// The headers to send with the tokens, in order: the ArcGIS token (and `Referer` for a token
    /// bound to one), then the proxy's `Authorization`.
    ///
    /// The ArcGIS token goes in `Authorization: Bearer`, the one header that the clients these
    /// headers are handed to (curl, GDAL and everything else on libcurl, python requests) drop when a
    /// redirect takes them to another host, port or scheme: a custom header such as
    /// `X-Esri-Authorization` follows the redirect, and so would the token. Behind an identity-aware
    /// proxy `Authorization` is the proxy's, so the ArcGIS token goes in `X-Esri-Authorization`, which
    /// ArcGIS reads first (docs/security.md says what follows a redirect there, and the safe way).
    public static func headers(
        _ credential: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?
    ) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let credential {
            let name = proxy == nil ? "Authorization" : "X-Esri-Authorization"
            headers.append((name, "Bearer \(credential.tokenInfo.accessToken)"))
            if let referer = credential.referer { headers.append(("Referer", referer)) }
        }
        if let proxy { headers.append(("Authorization", "Bearer \(proxy.tokenInfo.accessToken)")) }
        return headers
    }

    /// The object for `decision` (``object(_:proxy:url:renewableUntil:source:)`` with the decision's
    /// credentials, URL, ``CredentialDecision/renewableUntil`` and its source's
    /// ``CredentialSource/name``).
    public static func object(_ decision: CredentialDecision) -> JSONValue {
        object(
            decision.credential, proxy: decision.proxy, url: decision.url, renewableUntil: decision.renewableUntil,
            source: decision.source?.name)
    }

    /// The object, version ``version`` (the repository's docs/using-the-token.md describes it;
    /// docs/security.md states the contract of `kind` and `scope`: ``ScopedCredential``'s). `url`,
    /// the URL asked about, is the proxy token's scope. `renewableUntil` is the ArcGIS credential's
    /// ``ArcGISCredential/lapse(renewingUnattendedWith:)`` (`null` in the object when it is nil):
    /// render a ``CredentialDecision`` with ``object(_:)``, which gives its own. `source` is the
    /// ``CredentialSource/name`` of the source the credentials came from (`null` when not known).
    public static func object(
        _ credential: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?, url: URL? = nil,
        renewableUntil: Date?, source: String? = nil
    ) -> JSONValue {
        var object: [String: JSONValue] = ["version": .number(Double(version))]
        object["source"] = source.map(JSONValue.string) ?? .null
        if let credential {
            let info = credential.tokenInfo
            let scoped = ScopedCredential(credential)
            object["token"] = .string(info.accessToken)
            object["kind"] = .string(scoped.kind.rawValue)
            object["scope"] = .array(scoped.prefixes.map(JSONValue.string))
            object["expires"] = info.expirationDate.map { .string($0.formatted(.iso8601)) } ?? .null
            object["expires_epoch"] =
                info.expirationDate.map { .number($0.timeIntervalSince1970.rounded(.down)) } ?? .null
            object["renewableUntil"] = renewableUntil.map { .string($0.formatted(.iso8601)) } ?? .null
            object["ssl"] = .bool(info.isSSLRequired)
            object["server"] = .string(credential.serverContext.url)
            object["referer"] = credential.referer.map { .string($0) } ?? .null
        }
        if let proxy {
            let info = proxy.tokenInfo
            let expires: JSONValue = info.expirationDate.map { .string($0.formatted(.iso8601)) } ?? .null
            object["proxy"] = .object([
                "token": .string(info.accessToken), "expires": expires,
                "expires_epoch": info.expirationDate.map { .number($0.timeIntervalSince1970.rounded(.down)) } ?? .null,
                "scope": .array((url.map(ScopedCredential.proxyPrefixes(for:)) ?? []).map(JSONValue.string)),
            ])
            // The keys from before version 1, kept for the scripts that read them.
            object["proxyToken"] = .string(info.accessToken)
            object["proxyTokenExpires"] = expires
        }
        object["headers"] = .object(
            Dictionary(uniqueKeysWithValues: headers(credential, proxy: proxy).map { ($0.name, .string($0.value)) }))
        return .object(object)
    }
}
