import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The credentials `exec` hands to its command, and how they are kept valid while it runs.
struct LiveCredentials: Sendable {
    /// The header file's name in the private folder.
    static let headerFileName = "headers"
    /// The variables that point TLS clients at portal-auth's CA bundle: libcurl (curl, GDAL),
    /// python requests, and OpenSSL's default.
    static let caBundleVariables = ["CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"]

    /// The URL the credentials are for.
    let target: URL
    /// The ArcGIS credential, when there is one.
    var credential: (any ArcGISCredential)?
    /// The identity-aware proxy's credential, when the host is behind one.
    var proxy: (any IAPAuthorizationCredential)?
    /// How long before expiry to renew (nil: the credential's renewal leeway).
    var renewBefore: TimeInterval?

    /// Reads (renewing or federating as needed) the credentials for `target`; only a first
    /// fetch, before the command starts, may prompt.
    static func fetch(
        for target: URL, manager: AuthenticationManager, interactive: Bool = stdinIsTerminal
    ) async throws -> LiveCredentials {
        let (credential, proxy) = try await Token.credentials(
            for: target, manager: manager, format: .header, interactive: interactive)
        return LiveCredentials(target: target, credential: credential, proxy: proxy)
    }

    /// The header file: one `Name: value` line per header (GDAL_HTTP_HEADER_FILE, curl -H @file).
    var headerFile: String {
        Token.render(credential, proxy: proxy, format: .header, url: nil, renewableUntil: nil, source: nil) + "\n"
    }

    /// The variables portal-auth signs in with, which the command never gets: it gets the token.
    /// (The names that go with a secret go too: half a pair is an error to a nested portal-auth.)
    static let signInVariables = [
        "ARCGIS_PASSWORD", "ARCGIS_USER", "ARCGIS_SECRET", "ARCGIS_CLIENT", "PORTAL_AUTH_CLIENT_SECRET",
        // (A file's path is no secret, but the command signs in with the token, not the file.)
        "ARCGIS_PASSWORD_FILE", "ARCGIS_SECRET_FILE", "ARCGIS_API_KEY_FILE",
    ]

    /// The command's environment: `inheriting`, without stale portal-auth variables and without
    /// the secrets portal-auth signs in with (``signInVariables``; `ARCGIS_API_KEY` too, unless
    /// that key is the token handed on), with the tokens, the header file, and the CA bundle when
    /// there is one.
    func environment(inheriting: [String: String], headerFile: String, caBundle: String?) -> [String: String] {
        var environment = inheriting.filter { !$0.key.hasPrefix("PORTAL_AUTH_TOKEN") }
        for name in Self.signInVariables { environment[name] = nil }
        let handedOn = Token.environment(credential, proxy: proxy)
        if let key = environment["ARCGIS_API_KEY"], !handedOn.contains(where: { $0 == ("PORTAL_AUTH_TOKEN", key) }) {
            environment["ARCGIS_API_KEY"] = nil
        }
        for name in ["PORTAL_AUTH_SERVER", "PORTAL_AUTH_REFERER"] { environment[name] = nil }
        for prefix in ["PORTAL_AUTH_IAP_TOKEN", "PORTAL_AUTH_PROXY_TOKEN"] {
            environment[prefix] = nil
            environment[prefix + "_EXPIRES"] = nil
        }
        for (name, value) in handedOn { environment[name] = value }
        environment["GDAL_HTTP_HEADER_FILE"] = headerFile
        if let caBundle { for name in Self.caBundleVariables { environment[name] = caBundle } }
        return environment
    }

    /// The earliest expiry of the tokens (nil: none expires).
    var expirationDate: Date? {
        [credential?.tokenInfo.expirationDate, proxy?.tokenInfo.expirationDate].compactMap { $0 }.min()
    }

    /// When to renew next, the last attempt having been at `last` (nil: never). Never sooner
    /// than a second after the last attempt, and with the default leeway, never sooner than half
    /// the remaining lifetime (a server that issues short tokens is not asked every second).
    func renewalDate(after last: Date) -> Date? {
        guard let expirationDate else { return nil }
        let leeway = renewBefore ?? credential?.renewalLeeway ?? 300
        let floor = renewBefore == nil ? max(1, expirationDate.timeIntervalSince(last) / 2) : 1
        return max(expirationDate.addingTimeInterval(-leeway), last.addingTimeInterval(floor))
    }

    /// Rewrites the header file in `folder` with renewed tokens before they expire, until
    /// cancelled (the command exited) or renewal fails (said once on stderr; the command keeps
    /// the tokens it has until they expire).
    func keepRenewed(in folder: PrivateFolder, manager: AuthenticationManager) async {
        var current = self
        var last = Date()
        while let due = current.renewalDate(after: last) {
            // A day at a time: the milliseconds of a token that lasts a century overflow Int64.
            var wait = due.timeIntervalSinceNow
            while wait > 0 {
                do { try await Task.sleep(for: .milliseconds(Int64(min(wait, 86_400) * 1000))) } catch { return }
                wait = due.timeIntervalSinceNow
            }
            if Task.isCancelled { return }
            last = Date()
            do {
                // A token sign-in whose password is remembered gets a new token (no plugin is asked
                // without a terminal).
                try await manager.renewIfExpiring(target)
                var next = try await Self.fetch(for: target, manager: manager, interactive: false)
                next.renewBefore = renewBefore
                if next.headerFile != current.headerFile {
                    try folder.write(next.headerFile, to: Self.headerFileName)
                }
                current = next
            } catch let error as PortalAuthError {
                printWarning(
                    "could not renew the token for \(target) (\(error.message)); the command keeps the current "
                        + "token\(current.expirationDate.map { " until it expires at " + $0.iso8601 } ?? "")"
                )
                return
            } catch {
                printWarning("could not renew the token for \(target) (\(error)); the command keeps the current token")
                return
            }
        }
    }
}
