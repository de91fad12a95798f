import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth token`: print a valid token for scripts.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a valid token for a URL (the signed-in portal's when no URL is given).",
        discussion: """
            For a service on an ArcGIS Server federated with a signed-in portal, a server token is obtained \
            from the portal and cached. Never prompts when stdin is not a terminal.
              curl -H "$(portal-auth token URL --format header)" "URL?f=json"
              eval "$(portal-auth token --format env)"
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case plain, json, header, env }

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The URL the token is for.")
    var url: String?

    @Option(
        help:
            "plain (the token), json (token, expires, ssl, server), header (HTTP header lines) or env (shell exports). For a host behind an identity-aware proxy, json, header and env also give the proxy's token (Authorization: Bearer)."
    )
    var format: Format = .plain

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let target = try await resolveTarget(url, manager: manager)
            // A host behind an identity-aware proxy needs the proxy's token too (header, json, env),
            // and with no ArcGIS sign-in there, the proxy's token is the one to print.
            let proxy = format == .plain ? nil : try await manager.proxyCredential(for: target)
            let credential: (any ArcGISCredential)?
            do {
                credential = try await manager.credential(for: target, interactive: stdinIsTerminal && proxy == nil)
            } catch let error as PortalAuthError
                where error.code == .noCredential || error.code == .authenticationRequired
            {
                // (json, header and env asked for the proxy's credential already.)
                var usable = proxy
                if usable == nil, format == .plain { usable = try await manager.proxyCredential(for: target) }
                guard let usable else { throw error }
                output(render(nil, proxy: usable))
                return
            }
            output(render(credential, proxy: proxy))
        }
    }

    /// The ArcGIS credential's part and the proxy's part, either of which may be absent (not both).
    func render(_ credential: (any ArcGISCredential)?, proxy: (any ProxyAuthorizationCredential)?) -> String {
        Self.render(credential, proxy: proxy, format: format)
    }

    /// What `token` prints in `format` (the fast path prints through this too).
    static func render(
        _ credential: (any ArcGISCredential)?, proxy: (any ProxyAuthorizationCredential)?, format: Format
    ) -> String {
        let info = credential?.tokenInfo
        let proxyInfo = proxy?.tokenInfo
        switch format {
        case .plain:
            return info?.accessToken ?? proxyInfo?.accessToken ?? ""
        case .json:
            var object: [String: JSONValue] = [:]
            if let credential, let info {
                object["token"] = .string(info.accessToken)
                object["expires"] = info.expirationDate.map { .string($0.iso8601) } ?? .null
                object["ssl"] = .bool(info.isSSLRequired)
                object["server"] = .string(credential.serverContext.url)
                if let referer = credential.referer { object["referer"] = .string(referer) }
            }
            if let proxyInfo {
                object["proxyToken"] = .string(proxyInfo.accessToken)
                object["proxyTokenExpires"] = proxyInfo.expirationDate.map { .string($0.iso8601) } ?? .null
            }
            return JSONValue.object(object).description
        case .header:
            var lines: [String] = []
            if let credential, let info {
                lines.append("X-Esri-Authorization: Bearer \(info.accessToken)")
                if let referer = credential.referer { lines.append("Referer: \(referer)") }
            }
            if let proxyInfo { lines.append("Authorization: Bearer \(proxyInfo.accessToken)") }
            return lines.joined(separator: "\n")
        case .env:
            var lines: [String] = []
            if let credential, let info {
                lines.append("export PORTAL_AUTH_TOKEN=\(shellQuote(info.accessToken))")
                lines.append("export PORTAL_AUTH_SERVER=\(shellQuote(credential.serverContext.url))")
                if let date = info.expirationDate {
                    lines.append("export PORTAL_AUTH_TOKEN_EXPIRES=\(shellQuote(date.iso8601))")
                }
                if let referer = credential.referer {
                    lines.append("export PORTAL_AUTH_REFERER=\(shellQuote(referer))")
                }
            }
            if let proxyInfo {
                lines.append("export PORTAL_AUTH_PROXY_TOKEN=\(shellQuote(proxyInfo.accessToken))")
                if let date = proxyInfo.expirationDate {
                    lines.append("export PORTAL_AUTH_PROXY_TOKEN_EXPIRES=\(shellQuote(date.iso8601))")
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}

func shellQuote(_ value: String) -> String {
    "'" + value.replacing("'", with: "'\\''") + "'"
}

/// The URL a command works on: the one given, or the only signed-in portal.
func resolveTarget(_ url: String?, manager: AuthenticationManager) async throws -> URL {
    if let url { return try parseURL(url) }
    let portals = try await manager.arcGISCredentialStore.summaries().filter {
        $0.kind != FederatedTokenCredential.kind
    }
    let servers = Array(Set(portals.map(\.server))).sorted()
    guard servers.count == 1, let only = URL(string: servers[0]) else {
        if servers.isEmpty {
            throw PortalAuthError(
                .noCredential, "no portal is signed in: run portal-auth login --portal URL --username USER")
        }
        throw PortalAuthError(
            .invalidArgument,
            "\(servers.count) portals are signed in (\(servers.joined(separator: ", "))): name one, for example portal-auth token \(servers[0])"
        )
    }
    return only
}
