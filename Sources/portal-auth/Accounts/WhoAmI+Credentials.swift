import PortalAuth
import PortalAuthCertificate
import PortalAuthOAuthApplication
import PortalAuthPassword
import PortalAuthPregeneratedToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `whoami` for a credential that is no user's sign-in: an app's own (client credentials), a
/// pregenerated token, a network credential (an HTTP password, a client certificate).
extension WhoAmI {
    /// Prints what the credential for `target` is when it is one of those; false otherwise (a
    /// user's sign-in, or nothing stored: the user's whoami answers).
    static func describeOtherCredential(
        _ target: URL, context: ServerContext, manager: AuthenticationManager, json: Bool
    ) async throws -> Bool {
        let credential = try await manager.arcGISCredentialStore.credential(for: context, reload: true)
        switch credential {
        case let app as OAuthApplicationCredential:
            try await describeApp(app, manager: manager, json: json)
            return true
        case let token as PregeneratedTokenCredential:
            describePregenerated(token, json: json)
            return true
        case nil:
            guard let host = try? ServerContext.host(of: target),
                let network = try await manager.networkCredentialStore.credentials(for: host, reload: true).first
            else { return false }
            describeNetwork(network, host: host, json: json)
            return true
        default:
            return false
        }
    }

    /// An app: its client ID, its name (`portals/self`'s `appInfo`, where the portal gives it), the
    /// organization, and when its token expires.
    private static func describeApp(
        _ app: OAuthApplicationCredential, manager: AuthenticationManager, json: Bool
    ) async throws {
        let rest = app.serverContext.portalRESTURL
        let selfInfo = try await manager.send(ArcGISRequest(url: URL(string: rest + "/portals/self")!)).json ?? .null
        let appInfo = selfInfo["appInfo"]
        let appName = appInfo?["appTitle"]?.stringValue ?? appInfo?["name"]?.stringValue
        let portalName = selfInfo["name"]?.stringValue ?? selfInfo["portalName"]?.stringValue
        let organization = appInfo?["orgId"]?.stringValue ?? selfInfo["id"]?.stringValue
        let expires = app.tokenInfo.expirationDate
        if json {
            let object: [String: JSONValue] = [
                "username": .null, "credential": .string(OAuthApplicationCredential.kind),
                "clientId": .string(app.clientID), "appName": appName.map(JSONValue.string) ?? .null,
                "portal": .string(app.serverContext.url), "portalName": portalName.map(JSONValue.string) ?? .null,
                "organization": organization.map(JSONValue.string) ?? .null,
                "expires": expires.map { .string($0.iso8601) } ?? .null,
            ]
            output(try JSONValue.object(object).jsonText(pretty: true))
            return
        }
        outputLine("an app (no user): \(appName.map { "\($0), " } ?? "")client ID \(app.clientID)")
        outputLine("portal:       \(portalName ?? "?") (\(app.serverContext.url))")
        if let organization { outputLine("organization: \(organization)") }
        outputLine("expires:      \(expires?.iso8601 ?? "never") (renewed with the client secret)")
    }

    /// A pregenerated token: the server it is for, its user when known, its expiry and referer.
    private static func describePregenerated(_ token: PregeneratedTokenCredential, json: Bool) {
        let expires = token.tokenInfo.expirationDate
        if json {
            let object: [String: JSONValue] = [
                "username": token.username.map(JSONValue.string) ?? .null,
                "credential": .string(PregeneratedTokenCredential.kind), "server": .string(token.serverContext.url),
                "expires": expires.map { .string($0.iso8601) } ?? .null,
                "referer": token.referer.map(JSONValue.string) ?? .null,
            ]
            output((try? JSONValue.object(object).jsonText(pretty: true)) ?? "{}")
            return
        }
        outputLine("a pregenerated token\(token.username.map { " of \($0)" } ?? "")")
        outputLine("server:       \(token.serverContext.url)")
        outputLine("expires:      \(expires?.iso8601 ?? "never") (not renewed: get a new token when it expires)")
        if let referer = token.referer { outputLine("referer:      \(referer)") }
    }

    /// A network credential: the server (scheme, host, port), the kind and the user.
    private static func describeNetwork(_ credential: any NetworkCredential, host: ServerContext, json: Bool) {
        let kind = type(of: credential).kind
        let described =
            switch kind {
            case PasswordCredential.kind: "an HTTP password"
            case CertificateCredential.kind: "a client certificate"
            default: "a network credential (\(kind))"
            }
        if json {
            let object: [String: JSONValue] = [
                "username": credential.username.map(JSONValue.string) ?? .null, "credential": .string(kind),
                "server": .string(host.url),
            ]
            output((try? JSONValue.object(object).jsonText(pretty: true)) ?? "{}")
            return
        }
        outputLine("\(described)\(credential.username.map { " of \($0)" } ?? "")")
        outputLine("server:       \(host.url)")
    }
}
