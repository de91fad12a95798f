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
            from the portal and cached. Never prompts when stdin is not a terminal. \
            --format json prints a versioned object ("version": 1) described in docs/using-the-token.md, \
            with the URL prefixes the token may go to ("scope"); \
            portal-auth exec runs a command with a token that stays valid.

            Examples:
              portal-auth token https://host/portal
              hdr=$(portal-auth token URL --format header) &&
                curl -H @- "URL?f=json" <<<"$hdr"
              h=$(portal-auth token URL --format gdal) && GDAL_HTTP_HEADERS="$h" \\
                ogrinfo "ESRIJSON:URL/query?where=1=1&f=json"
              eval "$(portal-auth token --format env)"
            """
    )

    /// How the token is printed (see ``render(_:proxy:format:url:renewableUntil:source:)``).
    enum Format: String, ExpressibleByArgument, CaseIterable { case plain, json, header, gdal, env }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var account: AccountOption

    @Argument(help: "The URL the token is for.")
    var url: String?

    @Option(
        help:
            "plain (the token), json (a versioned object: token, kind, scope, expires, renewableUntil, source, ssl, server, referer, headers), header (one 'Name: value' line per header, for curl -H @file), gdal (the headers joined with CRLF, for GDAL_HTTP_HEADERS) or env (shell exports). For a host behind an identity-aware proxy, all but plain also give the proxy's token (Authorization: Bearer)."
    )
    var format: Format = .plain

    func run() async throws {
        try await runReportingErrors {
            let (source, target) = try await global.sourceAndTarget(url, storedAccount: account.name)
            // (Asked of the source, the decision names it: json prints its name.)
            let decision = try await source.decision(
                for: target, askedBy: .program, includingProxy: format != .plain, renewingFirst: false,
                interactive: stdinIsTerminal)
            Self.print(
                decision.credential, proxy: decision.proxy, format: format, url: target,
                renewableUntil: format == .json ? decision.renewableUntil : nil, source: decision.source?.name)
            APIKeyLogin.warnIfExpiring(decision.credential)  // API key (#22)
        }
    }

    /// The ArcGIS credential for `target` (renewed or federated as needed) and, except for the
    /// plain format, the identity-aware proxy's credential for its host: the core's one decision
    /// (``AuthenticationManager/decision(for:includingProxy:renewingFirst:interactive:)``; the command
    /// renewed an expiring token already). With no ArcGIS sign-in there, the proxy's credential alone
    /// (plain prints its token); with neither, the error. `interactive`: a sign-in may prompt (never
    /// when there is a proxy credential).
    static func credentials(
        for target: URL, manager: AuthenticationManager, format: Format, interactive: Bool = stdinIsTerminal
    ) async throws -> ((any ArcGISCredential)?, (any IAPAuthorizationCredential)?) {
        let decision = try await decision(for: target, manager: manager, format: format, interactive: interactive)
        return (decision.credential, decision.proxy)
    }

    /// The decision ``credentials(for:manager:format:interactive:)`` gives the credentials of (and
    /// json, until when the credential can be renewed: ``CredentialDecision/renewableUntil``).
    static func decision(
        for target: URL, manager: AuthenticationManager, format: Format, interactive: Bool = stdinIsTerminal
    ) async throws -> CredentialDecision {
        try await manager.decision(
            for: target, includingProxy: format != .plain, renewingFirst: false, interactive: interactive)
    }
}

func shellQuote(_ value: String) -> String {
    "'" + value.replacing("'", with: "'\\''") + "'"
}

/// The URL a command works on: the one given, or the only signed-in portal; `naming` says how
/// the command takes a portal when several are signed in.
func resolveTarget(_ url: String?, manager: AuthenticationManager, naming: PortalNaming = .token) async throws -> URL {
    if let url { return try parseURL(url) }
    let portals = try await manager.arcGISCredentialStore.summaries().filter {
        $0.kind != FederatedTokenCredential.kind
    }
    let servers = Array(Set(portals.map(APIKeyLogin.portalServer))).sorted()  // API key (#22): its portal
    guard servers.count == 1, let only = URL(string: servers[0]) else {
        if servers.isEmpty {
            throw PortalAuthError(
                .noCredential, "no portal is signed in", remedy: .signIn(.init(kind: "token")))
        }
        throw PortalAuthError(
            .invalidArgument,
            "\(servers.count) portals are signed in (\(servers.joined(separator: ", "))): "
                + naming.advice(example: servers[0]))
    }
    return only
}
