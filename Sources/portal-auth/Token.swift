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

    @Option(help: "plain (the token), json (token, expires, ssl, server), header (HTTP header lines) or env (shell exports).")
    var format: Format = .plain

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let target = try await resolveTarget(url, manager: manager)
            let credential = try await manager.credential(for: target, interactive: stdinIsTerminal)
            output(render(credential))
        }
    }

    func render(_ credential: any ArcGISCredential) -> String {
        let info = credential.tokenInfo
        switch format {
        case .plain:
            return info.accessToken
        case .json:
            var object: [String: JSONValue] = [
                "token": .string(info.accessToken),
                "expires": info.expirationDate.map { .string($0.iso8601) } ?? .null,
                "ssl": .bool(info.isSSLRequired),
                "server": .string(credential.serverContext.url),
            ]
            if let referer = credential.referer { object["referer"] = .string(referer) }
            return JSONValue.object(object).description
        case .header:
            var lines = ["X-Esri-Authorization: Bearer \(info.accessToken)"]
            if let referer = credential.referer { lines.append("Referer: \(referer)") }
            return lines.joined(separator: "\n")
        case .env:
            var lines = ["export PORTAL_AUTH_TOKEN=\(shellQuote(info.accessToken))",
                         "export PORTAL_AUTH_SERVER=\(shellQuote(credential.serverContext.url))"]
            if let date = info.expirationDate { lines.append("export PORTAL_AUTH_TOKEN_EXPIRES=\(shellQuote(date.iso8601))") }
            if let referer = credential.referer { lines.append("export PORTAL_AUTH_REFERER=\(shellQuote(referer))") }
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
    let portals = try await manager.arcGISCredentialStore.summaries().filter { $0.kind != FederatedTokenCredential.kind }
    let servers = Array(Set(portals.map(\.server))).sorted()
    guard servers.count == 1, let only = URL(string: servers[0]) else {
        if servers.isEmpty {
            throw PortalAuthError(.noCredential, "no portal is signed in: run portal-auth login --portal URL --username USER")
        }
        throw PortalAuthError(.invalidArgument, "\(servers.count) portals are signed in (\(servers.joined(separator: ", "))): name one, for example portal-auth token \(servers[0])")
    }
    return only
}
