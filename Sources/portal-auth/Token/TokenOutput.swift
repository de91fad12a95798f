import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What `token` prints in each format, and what must go with a token: the headers.
extension Token {
    /// Prints the token in `format`; for a token bound to a referer in the plain format, says on
    /// stderr (when it is a terminal: scripts read stdout alone) that the Referer must go with it.
    /// `renewableUntil` and `source`: the credential's and where it came from, for json (``TokenJSON``).
    static func print(
        _ credential: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?, format: Format, url: URL?,
        renewableUntil: Date?, source: String?
    ) {
        var text = standardOutput(
            credential, proxy: proxy, format: format, url: url, renewableUntil: renewableUntil, source: source)
        writeAll(1, &text)
        if format == .plain, let referer = credential?.referer, isatty(2) == 1 {
            printInfo(
                "portal-auth: note: this token is bound to the referer \(referer): send the header 'Referer: "
                    + "\(referer)' with it, or the server refuses it (--format header, gdal, env and json include it)"
            )
        }
    }

    /// The bytes ``print(_:proxy:format:url:renewableUntil:source:)`` writes to stdout (as ``output(_:)`` writes the
    /// text).
    static func standardOutput(
        _ credential: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?, format: Format, url: URL?,
        renewableUntil: Date?, source: String?
    ) -> String {
        let text = render(
            credential, proxy: proxy, format: format, url: url, renewableUntil: renewableUntil, source: source)
        return terminalText(text, keepingLines: true) + "\n"
    }

    /// What `token` prints in `format` (the fast path prints through this too); `url`, the URL
    /// asked about, is the proxy token's scope in json, `renewableUntil` the credential's
    /// (``CredentialDecision/renewableUntil``) and `source` the name of the source it came from
    /// (``CredentialSource/name``); json alone prints them.
    static func render(
        _ credential: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?, format: Format,
        url: URL?, renewableUntil: Date?, source: String?
    ) -> String {
        switch format {
        case .plain: return credential?.tokenInfo.accessToken ?? proxy?.tokenInfo.accessToken ?? ""
        // The library's TokenJSON: serve's token endpoint answers the same object and headers.
        case .json:
            return TokenJSON.object(
                credential, proxy: proxy, url: url, renewableUntil: renewableUntil, source: source
            ).description
        case .header:
            return TokenJSON.headers(credential, proxy: proxy).map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        case .gdal:
            // GDAL_HTTP_HEADERS: several headers separated by CRLF (GDAL 3.6 and later).
            return TokenJSON.headers(credential, proxy: proxy).map { "\($0.name): \($0.value)" }.joined(
                separator: "\r\n")
        case .env:
            return environment(credential, proxy: proxy).map { "export \($0)=\(shellQuote($1))" }
                .joined(separator: "\n")
        }
    }

    /// The variables `--format env` exports (and `exec` sets), in order.
    static func environment(
        _ credential: (any ArcGISCredential)?, proxy: (any IAPAuthorizationCredential)?
    ) -> [(String, String)] {
        var variables: [(String, String)] = []
        if let credential {
            let info = credential.tokenInfo
            variables.append(("PORTAL_AUTH_TOKEN", info.accessToken))
            variables.append(("PORTAL_AUTH_SERVER", credential.serverContext.url))
            if let date = info.expirationDate { variables.append(("PORTAL_AUTH_TOKEN_EXPIRES", date.iso8601)) }
            if let referer = credential.referer { variables.append(("PORTAL_AUTH_REFERER", referer)) }
        }
        if let proxy {
            let expires = proxy.tokenInfo.expirationDate?.iso8601
            // PORTAL_AUTH_PROXY_TOKEN(_EXPIRES), the names before the IAP renaming (deprecated), are set
            // too, so that users' scripts keep working for a release.
            for prefix in ["PORTAL_AUTH_IAP_TOKEN", "PORTAL_AUTH_PROXY_TOKEN"] {
                variables.append((prefix, proxy.tokenInfo.accessToken))
                if let expires { variables.append((prefix + "_EXPIRES", expires)) }
            }
        }
        return variables
    }
}
